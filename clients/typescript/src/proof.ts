/*
 * The proof of work of docs/http-api.md: a nonce such that SHA-256(`<challenge>:<nonce>`) starts with at least `bits`
 * zero bits. SHA-256 is written out here because the library has no runtime dependency and `crypto.subtle` costs a
 * promise per hash (about fifty times slower); the three functions below are self-contained so that their source can
 * also run in a Web Worker built from it, keeping the page responsive while it searches.
 */

/** The SHA-256 of `bytes`. */
export function sha256(bytes: Uint8Array): Uint8Array {
  const K = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
    0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
    0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
  ];
  const length = bytes.length;
  const padded = new Uint8Array(((length + 9 + 63) >> 6) << 6);
  padded.set(bytes);
  padded[length] = 0x80;
  const bits = length * 8;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bits / 0x100000000));
  view.setUint32(padded.length - 4, bits >>> 0);
  const h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
  const w = new Uint32Array(64);
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) {
      w[i] = view.getUint32(offset + i * 4);
    }
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15];
      const b = w[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (let i = 0; i < 64; i++) {
      const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (k + s1 + ch + K[i] + w[i]) | 0;
      const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (s0 + maj) | 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = (h[0] + a) | 0;
    h[1] = (h[1] + b) | 0;
    h[2] = (h[2] + c) | 0;
    h[3] = (h[3] + d) | 0;
    h[4] = (h[4] + e) | 0;
    h[5] = (h[5] + f) | 0;
    h[6] = (h[6] + g) | 0;
    h[7] = (h[7] + k) | 0;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) {
    outView.setUint32(i * 4, h[i]);
  }
  return out;
}

/** The leading zero bits of a hash. */
export function zeroBits(hash: Uint8Array): number {
  let zeros = 0;
  for (let i = 0; i < hash.length; i++) {
    const b = hash[i];
    if (b === 0) {
      zeros += 8;
      continue;
    }
    zeros += Math.clz32(b) - 24;
    break;
  }
  return zeros;
}

/** Tries the nonces `from` to `to - 1`: the first proof that passes, or null. */
export function solveRange(challenge: string, bits: number, from: number, to: number): string | null {
  const encoder = new TextEncoder();
  for (let nonce = from; nonce < to; nonce++) {
    const proof = challenge + ':' + nonce;
    if (zeroBits(sha256(encoder.encode(proof))) >= bits) {
      return proof;
    }
  }
  return null;
}

const CHUNK = 4096;

/**
 * Solves off the main thread: in a Web Worker where the platform has them (browsers), else in chunks of a few
 * thousand hashes with a timer between them, so that the app's event loop (React Native's JS thread, Node's) keeps
 * running.
 */
export async function solve(challenge: string, bits: number, useWorker: boolean, signal?: AbortSignal): Promise<string> {
  if (useWorker && typeof Worker !== 'undefined' && typeof Blob !== 'undefined' && typeof URL !== 'undefined') {
    try {
      return await solveInWorker(challenge, bits, signal);
    } catch (e) {
      if (signal?.aborted) {
        throw e;
      }
      // a Content-Security-Policy without blob: workers: solve here, in chunks
    }
  }
  for (let from = 0; ; from += CHUNK) {
    if (signal?.aborted) {
      throw signal.reason ?? new Error('aborted');
    }
    const proof = solveRange(challenge, bits, from, from + CHUNK);
    if (proof !== null) {
      return proof;
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/** Whether the last proof of work was solved in a Web Worker (for the browser test and the curious). */
export const solvedIn = { worker: false };

function solveInWorker(challenge: string, bits: number, signal?: AbortSignal): Promise<string> {
  const source =
    `${sha256.toString()}\n${zeroBits.toString()}\n${solveRange.toString()}\n` +
    `onmessage = (e) => { const d = e.data; postMessage(${solveRange.name}(d.challenge, d.bits, 0, Number.MAX_SAFE_INTEGER)); };`;
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  return new Promise<string>((resolve, reject) => {
    const worker = new Worker(url);
    const done = () => {
      worker.terminate();
      URL.revokeObjectURL(url);
    };
    const onAbort = () => {
      done();
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.onmessage = (event: MessageEvent<string>) => {
      signal?.removeEventListener('abort', onAbort);
      done();
      solvedIn.worker = true;
      resolve(event.data);
    };
    worker.onerror = (event) => {
      signal?.removeEventListener('abort', onAbort);
      done();
      event.preventDefault?.();
      reject(new Error('the proof-of-work worker failed: ' + (event.message ?? '')));
    };
    worker.postMessage({ challenge, bits });
  });
}
