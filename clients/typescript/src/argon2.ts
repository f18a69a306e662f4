/*
 * The memory-hard proof of work of docs/http-api.md (an event whose challenge says `"algorithm": "argon2id"`): a nonce
 * such that the Argon2id (version 0x13, 32 bytes) of `<challenge>:<nonce>`, salted with `<challenge>`, under the
 * memory and passes the challenge names, starts with at least `bits` zero bits. Argon2id comes from hash-wasm (a
 * WebAssembly build, no dependencies of its own, browsers, React Native with WebAssembly, Node 18+); it is loaded only
 * when an event asks for this check.
 */
import { zeroBits } from './proof.js';

/** Argon2id's parameters, as the challenge's answer gives them. */
export interface Argon2Parameters {
  memoryKiB: number;
  iterations: number;
  parallelism: number;
}

export async function solveArgon2id(
  challenge: string,
  bits: number,
  parameters: Argon2Parameters,
  signal?: AbortSignal,
): Promise<string> {
  const { argon2id } = await import('hash-wasm');
  const encoder = new TextEncoder();
  const salt = encoder.encode(challenge);
  for (let nonce = 0; ; nonce++) {
    if (signal?.aborted) {
      throw signal.reason ?? new Error('aborted');
    }
    const proof = `${challenge}:${nonce}`;
    const hash = await argon2id({
      password: encoder.encode(proof),
      salt,
      parallelism: parameters.parallelism,
      iterations: parameters.iterations,
      memorySize: parameters.memoryKiB,
      hashLength: 32,
      outputType: 'binary',
    });
    if (zeroBits(hash) >= bits) {
      return proof;
    }
  }
}
