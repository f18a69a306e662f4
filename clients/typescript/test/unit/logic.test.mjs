// The pure parts: backoff, the SSE parser, SHA-256 and the proof-of-work solver.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { backoffDelay } from '../../dist/backoff.js';
import { SseParser } from '../../dist/sse.js';
import { sha256, solve, solveRange, zeroBits } from '../../dist/proof.js';

test('backoff never comes sooner than Retry-After and fills a window that doubles up to its cap', () => {
  for (let attempt = 0; attempt < 12; attempt++) {
    const window = Math.min(30000, 1000 * 2 ** attempt);
    let least = Infinity;
    let most = 0;
    for (let i = 0; i < 2000; i++) {
      const delay = backoffDelay(attempt, 2000, 1000, 30000);
      least = Math.min(least, delay);
      most = Math.max(most, delay);
    }
    assert.ok(least >= 2000, `attempt ${attempt}: ${least}`);
    assert.ok(most < 2000 + window, `attempt ${attempt}: ${most}`);
    assert.ok(most - least > window * 0.9, `attempt ${attempt}: spread ${most - least}`);
  }
  assert.equal(backoffDelay(1000, 0, 1000, 30000, () => 0.99999), 29999);
});

test('the SSE parser reads events split anywhere, comments, ids and CRLF', () => {
  const events = [];
  const parser = new SseParser((e) => events.push(e));
  const text = ':heartbeat\r\nevent:status\r\nid:42:w3\r\ndata:{"a":1}\r\n\r\nevent: replaced\ndata: {"couponId":42}\n\n';
  for (const char of text) {
    parser.push(char);
  }
  assert.deepEqual(events, [
    { event: 'status', data: '{"a":1}', id: '42:w3' },
    { event: 'replaced', data: '{"couponId":42}', id: undefined },
  ]);
});

test('SHA-256 agrees with node:crypto', () => {
  for (const text of ['', 'abc', 'v1.42.1795740180.16.3vJ0mXkq2cBQ8Zxw:123', 'x'.repeat(200)]) {
    const mine = Buffer.from(sha256(new TextEncoder().encode(text))).toString('hex');
    assert.equal(mine, createHash('sha256').update(text).digest('hex'));
  }
});

test('the solver finds a proof with enough zero bits, in chunks off the event loop', async () => {
  // a challenge whose first proof lies past the first chunk of 4,096 nonces, so the solver must yield at least once
  let challenge = 'v1.7.a';
  while (solveRange(challenge, 14, 0, 4096) !== null) {
    challenge += 'a';
  }
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const proof = await solve(challenge, 14, false);
  clearInterval(timer);
  assert.ok(proof.startsWith(challenge + ':'));
  assert.ok(zeroBits(createHash('sha256').update(proof).digest()) >= 14);
  assert.ok(ticks > 0, 'the event loop ran while solving');
});

test('the Argon2id rule is the api\'s (a vector from the api\'s Bouncy Castle), and its solver finds a proof', async () => {
  const { argon2id } = await import('hash-wasm');
  const { solveArgon2id } = await import('../../dist/argon2.js');
  const salt = new TextEncoder().encode('a1.7.abc');
  const hash = await argon2id({
    password: 'a1.7.abc:0', salt, parallelism: 1, iterations: 2, memorySize: 256, hashLength: 32, outputType: 'hex',
  });
  assert.equal(hash, '04b01ab9379b4e936fb9ce29e2c1ebe944e45cb7c5c503afae02d173d1861e5b');
  const proof = await solveArgon2id('a1.7.abc', 4, { memoryKiB: 256, iterations: 2, parallelism: 1 });
  const solved = await argon2id({
    password: proof, salt, parallelism: 1, iterations: 2, memorySize: 256, hashLength: 32, outputType: 'binary',
  });
  assert.ok(proof.startsWith('a1.7.abc:'));
  assert.ok(zeroBits(solved) >= 4);
});
