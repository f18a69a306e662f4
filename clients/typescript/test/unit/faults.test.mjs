// The TypeScript client against a local server that misbehaves as the contract allows: 503 and 429 with Retry-After,
// network errors, expiring tokens, dropped and refused streams, an event not open yet, a proof of work. Each claim must
// still end ISSUED or FAILED as the server meant, and no retry may come sooner than Retry-After.
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { CouponClient, memoryStorage } from '../../dist/index.js';
import { faultServer, failedStatus, issued, json, problem, stream, waiting } from '../support/fault-server.mjs';

const ISSUE = '/api/v1/coupons/7/issue-requests';
const EVENTS = '/api/v1/coupons/7/issue-requests/me/events';
const STATUS = '/api/v1/coupons/7/issue-requests/me';

let server;
let updates;

beforeEach(async () => {
  server = await faultServer();
  updates = [];
});
afterEach(() => server.close());

const client = (options = {}) =>
  new CouponClient({ baseUrl: server.url, token: 'token-1', backoff: { baseMs: 200, capMs: 2000 }, ...options });
const claim = (c = client()) => c.claim(7, { onUpdate: (u) => updates.push(u) });
const between = (a, b) => b.at - a.at;

function streamIssues(walletCouponId) {
  server.on('GET', EVENTS, ({ res }) => {
    const s = stream(res);
    s.send('status', waiting(7, 1), '7:w1');
    s.send('status', issued(7, walletCouponId), `7:i${walletCouponId}`);
    s.end();
  });
}

describe('overload', () => {
  test('503 with Retry-After: waits at least that long, then is admitted and issued', async () => {
    server.on('POST', ISSUE, ({ res, call }) =>
      call <= 2 ? problem(res, 503, 'UNAVAILABLE', { 'Retry-After': '1' }) : json(res, 202, waiting(7, 3)));
    streamIssues(901);

    assert.deepEqual(await claim(), { couponId: 7, outcome: 'ISSUED', walletCouponId: 901 });
    const posts = server.requests('POST', ISSUE);
    assert.equal(posts.length, 3);
    assert.ok(between(posts[0], posts[1]) >= 1000, `${between(posts[0], posts[1])} ms`);
    assert.ok(between(posts[1], posts[2]) >= 1000, `${between(posts[1], posts[2])} ms`);
    assert.ok(updates.some((u) => u.phase === 'RETRYING'));
    assert.ok(updates.some((u) => u.phase === 'WAITING' && u.position === 3));
  });

  test('429 with Retry-After: 2 waits at least two seconds', async () => {
    server.on('POST', ISSUE, ({ res, call }) =>
      call === 1 ? problem(res, 429, 'RATE_LIMITED', { 'Retry-After': '2' }) : json(res, 200, issued(7, 5)));
    assert.deepEqual(await claim(), { couponId: 7, outcome: 'ISSUED', walletCouponId: 5 });
    const posts = server.requests('POST', ISSUE);
    assert.ok(between(posts[0], posts[1]) >= 2000);
  });

  test('a network error is retried; attempts that run out fail GAVE_UP', async () => {
    server.on('POST', ISSUE, ({ res, call }) => (call <= 2 ? res.socket.destroy() : json(res, 202, issued(7, 6))));
    assert.deepEqual(await claim(), { couponId: 7, outcome: 'ISSUED', walletCouponId: 6 });

    server.on('POST', ISSUE, ({ res }) => problem(res, 503, 'UNAVAILABLE', { 'Retry-After': '0' }));
    const before = server.requests('POST', ISSUE).length;
    const result = await claim(client({ maxAttempts: 3, backoff: { baseMs: 10, capMs: 50 } }));
    assert.deepEqual(result, { couponId: 7, outcome: 'FAILED', reason: 'GAVE_UP' });
    assert.equal(server.requests('POST', ISSUE).length - before, 4);
  });
});

describe('tokens', () => {
  test('a 401 asks the app for a new token once', async () => {
    let asked = 0;
    server.on('POST', ISSUE, ({ req, res }) =>
      req.headers.authorization === 'Bearer token-1' ? problem(res, 401, 'UNAUTHORIZED') : json(res, 202, issued(7, 8)));
    const result = await claim(client({ token: async () => `token-${++asked}` }));
    assert.deepEqual(result, { couponId: 7, outcome: 'ISSUED', walletCouponId: 8 });
    assert.equal(asked, 2);
  });

  test('a refused new token fails the claim UNAUTHORIZED after one refresh', async () => {
    let asked = 0;
    server.on('POST', ISSUE, ({ res }) => problem(res, 401, 'UNAUTHORIZED'));
    const result = await claim(client({ token: () => `expired-${++asked}` }));
    assert.deepEqual(result, { couponId: 7, outcome: 'FAILED', reason: 'UNAUTHORIZED' });
    assert.equal(asked, 2);
    assert.equal(server.requests('POST', ISSUE).length, 2);
  });

  test('a token that expires while the stream is open is refreshed when the stream answers 401', async () => {
    let asked = 0;
    server.on('POST', ISSUE, ({ res }) => json(res, 202, waiting(7, 2)));
    server.on('GET', EVENTS, ({ req, res }) => {
      if (req.headers.authorization === 'Bearer token-1') {
        problem(res, 401, 'UNAUTHORIZED');
        return;
      }
      const s = stream(res);
      s.send('status', issued(7, 3), '7:i3');
      s.end();
    });
    const result = await claim(client({ token: () => `token-${++asked}` }));
    assert.deepEqual(result, { couponId: 7, outcome: 'ISSUED', walletCouponId: 3 });
    assert.equal(server.requests('GET', EVENTS)[1].headers.authorization, 'Bearer token-2');
  });
});

describe('streams', () => {
  test('a dropped stream is opened again with Last-Event-ID', async () => {
    server.on('POST', ISSUE, ({ res }) => json(res, 202, waiting(7, 2)));
    server.on('GET', EVENTS, ({ res, call }) => {
      const s = stream(res);
      if (call === 1) {
        s.send('status', waiting(7, 2), '7:w2');
        setTimeout(() => s.cut(), 50); // the connection dies, no final event
      } else {
        s.send('status', issued(7, 44), '7:i44');
        s.end();
      }
    });
    assert.deepEqual(await claim(), { couponId: 7, outcome: 'ISSUED', walletCouponId: 44 });
    const streams = server.requests('GET', EVENTS);
    assert.equal(streams.length, 2);
    assert.equal(streams[0].headers['last-event-id'], undefined);
    assert.equal(streams[1].headers['last-event-id'], '7:w2');
  });

  test('streams that keep failing give way to reading the status at the suggested interval', async () => {
    server.on('POST', ISSUE, ({ res }) => json(res, 202, waiting(7, 2)));
    server.on('GET', EVENTS, ({ res }) => problem(res, 503, 'UNAVAILABLE', { 'Retry-After': '1' }));
    server.on('GET', STATUS, ({ res, call }) =>
      call < 3
        ? json(res, 200, waiting(7, 3 - call), { 'X-Coupon-Poll-After': '1' })
        : json(res, 200, failedStatus(7, 'SOLD_OUT')));

    assert.deepEqual(await claim(), { couponId: 7, outcome: 'FAILED', reason: 'SOLD_OUT' });
    assert.equal(server.requests('GET', EVENTS).length, 3);
    const streams = server.requests('GET', EVENTS);
    assert.ok(between(streams[0], streams[1]) >= 1000, 'Retry-After of a refused stream');
    const polls = server.requests('GET', STATUS);
    assert.equal(polls.length, 3);
    assert.ok(between(polls[0], polls[1]) >= 1000);
    assert.ok(between(polls[1], polls[2]) >= 1000);
    assert.ok(updates.some((u) => u.position === 1));
  });

  test('a stream idle past its timeout counts as cut', async () => {
    server.on('POST', ISSUE, ({ res }) => json(res, 202, waiting(7, 2)));
    server.on('GET', EVENTS, ({ res, call }) => {
      const s = stream(res);
      if (call === 1) {
        s.send('status', waiting(7, 2), '7:w2'); // then silence: no heartbeat
      } else {
        s.send('status', issued(7, 45), '7:i45');
        s.end();
      }
    });
    assert.deepEqual(await claim(client({ streamTimeoutMs: 500 })), { couponId: 7, outcome: 'ISSUED', walletCouponId: 45 });
    assert.equal(server.requests('GET', EVENTS)[1].headers['last-event-id'], '7:w2');
  });

  test('a reconnect event opens the stream again; replaced hands the coupon to polling', async () => {
    server.on('POST', ISSUE, ({ res }) => json(res, 202, waiting(7, 2)));
    server.on('GET', EVENTS, ({ res, call }) => {
      const s = stream(res);
      if (call === 1) {
        s.send('status', waiting(7, 2), '7:w2');
        s.send('reconnect', { couponId: 7, reason: 'reconnect' });
      } else {
        s.send('replaced', { couponId: 7, reason: 'replaced' });
      }
      s.end();
    });
    server.on('GET', STATUS, ({ res }) => json(res, 200, issued(7, 12)));
    assert.deepEqual(await claim(), { couponId: 7, outcome: 'ISSUED', walletCouponId: 12 });
    assert.equal(server.requests('GET', EVENTS).length, 2);
    assert.equal(server.requests('GET', STATUS).length, 1);
  });

  test('several claims share one stream', async () => {
    for (const id of [7, 8]) {
      server.on('POST', `/api/v1/coupons/${id}/issue-requests`, ({ res }) => json(res, 202, waiting(id, id)));
    }
    server.on('GET', '/api/v1/me/events', ({ res }) => {
      const s = stream(res);
      s.send('status', waiting(7, 7), '7:w7');
      s.send('status', issued(7, 70), '7:i70,8:w8');
      s.send('status', failedStatus(8, 'SOLD_OUT'), '7:i70,8:fSOLD_OUT');
      s.end();
    });
    const results = await client().claimAll([7, 8], { onUpdate: (u) => updates.push(u) });
    assert.deepEqual([...results.entries()], [
      [7, { couponId: 7, outcome: 'ISSUED', walletCouponId: 70 }],
      [8, { couponId: 8, outcome: 'FAILED', reason: 'SOLD_OUT' }],
    ]);
    const streams = server.requests('GET', '/api/v1/me/events');
    assert.equal(streams.length, 1);
    assert.equal(streams[0].query, '?coupons=7,8');
  });
});

describe('answers', () => {
  test('409 NOT_OPEN waits for openAt by the server clock, then asks', async () => {
    server.on('POST', ISSUE, ({ res, call }) => (call === 1 ? problem(res, 409, 'NOT_OPEN') : json(res, 202, issued(7, 9))));
    server.on('GET', '/api/v1/coupons/7', ({ res }) => {
      const now = Math.floor(Date.now() / 1000) * 1000;
      json(res, 200, { id: 7, status: 'SCHEDULED', openAt: new Date(now + 2000).toISOString() }, { Date: new Date(now).toUTCString() });
    });
    assert.deepEqual(await claim(), { couponId: 7, outcome: 'ISSUED', walletCouponId: 9 });
    const read = server.requests('GET', '/api/v1/coupons/7')[0];
    assert.ok(between(read, server.requests('POST', ISSUE)[1]) >= 1000);
    assert.ok(updates.some((u) => u.phase === 'NOT_OPEN_YET'));
  });

  test('a closed event fails NOT_OPEN, a sold-out one SOLD_OUT', async () => {
    server.on('POST', ISSUE, ({ res }) => problem(res, 409, 'NOT_OPEN'));
    server.on('GET', '/api/v1/coupons/7', ({ res }) => json(res, 200, { id: 7, status: 'CLOSED', openAt: '2020-01-01T00:00:00Z' }));
    assert.deepEqual(await claim(), { couponId: 7, outcome: 'FAILED', reason: 'NOT_OPEN' });
    server.on('POST', ISSUE, ({ res }) => problem(res, 409, 'SOLD_OUT'));
    assert.deepEqual(await claim(), { couponId: 7, outcome: 'FAILED', reason: 'SOLD_OUT' });
  });

  test('428 fetches a challenge, solves it and sends the proof', async () => {
    server.on('GET', '/api/v1/coupons/7/challenge', ({ res }) =>
      json(res, 200, { challenge: 'v1.7.abc', difficultyBits: 10, expiresAt: '2099-01-01T00:00:00Z' }));
    server.on('POST', ISSUE, ({ req, res }) => {
      const proof = req.headers['x-coupon-proof'];
      if (!proof) {
        problem(res, 428, 'PROOF_REQUIRED');
        return;
      }
      const hash = createHash('sha256').update(proof).digest();
      const bits = hash[0] === 0 ? 8 + Math.clz32(hash[1]) - 24 : Math.clz32(hash[0]) - 24;
      if (!proof.startsWith('v1.7.abc:') || bits < 10) {
        problem(res, 403, 'PROOF_INVALID');
        return;
      }
      json(res, 202, issued(7, 10));
    });
    assert.deepEqual(await claim(), { couponId: 7, outcome: 'ISSUED', walletCouponId: 10 });
    assert.ok(updates.some((u) => u.phase === 'SOLVING_PROOF'));
  });

  test('an argon2id challenge is solved by its rule and parameters', async () => {
    const { argon2id } = await import('hash-wasm');
    server.on('GET', '/api/v1/coupons/7/challenge', ({ res }) =>
      json(res, 200, {
        challenge: 'a1.7.abc', difficultyBits: 3, expiresAt: '2099-01-01T00:00:00Z', algorithm: 'argon2id',
        argon2: { memoryKiB: 256, iterations: 2, parallelism: 1 },
      }));
    const proofs = [];
    server.on('POST', ISSUE, ({ req, res }) => {
      const proof = req.headers['x-coupon-proof'];
      if (!proof) {
        problem(res, 428, 'PROOF_REQUIRED');
        return;
      }
      proofs.push(proof);
      json(res, 202, issued(7, 10));
    });
    assert.deepEqual(await claim(), { couponId: 7, outcome: 'ISSUED', walletCouponId: 10 });
    const hash = await argon2id({
      password: proofs[0], salt: new TextEncoder().encode('a1.7.abc'), parallelism: 1, iterations: 2,
      memorySize: 256, hashLength: 32, outputType: 'binary',
    });
    const bits = hash[0] === 0 ? 8 + Math.clz32(hash[1]) - 24 : Math.clz32(hash[0]) - 24;
    assert.ok(proofs[0].startsWith('a1.7.abc:') && bits >= 3);
  });

  test('an aborted claim rejects with the signal reason and asks nothing more', async () => {
    server.on('POST', ISSUE, ({ res }) => problem(res, 503, 'UNAVAILABLE', { 'Retry-After': '30' }));
    const controller = new AbortController();
    const pending = client().claim(7, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort(new Error('left the page'));
    await assert.rejects(pending, /left the page/);
    assert.equal(server.requests('POST', ISSUE).length, 1);
  });

  test('registerDevice puts the token with its platform', async () => {
    server.on('PUT', '/api/v1/me/devices/fcm%3Aabc', ({ res }) => json(res, 204, ''));
    await client().registerDevice('fcm:abc', 'ANDROID');
    assert.equal(server.requests('PUT', '/api/v1/me/devices/fcm%3Aabc').length, 1);
  });
});

describe('resuming', () => {
  test('a waiting claim is picked up from storage with its Last-Event-ID; a decided one is answered from it', async () => {
    const storage = memoryStorage();
    storage.setItem('flash-coupon:claim:7', JSON.stringify({ couponId: 7, state: 'WAITING', lastEventId: '7:w5', updatedAt: 1 }));
    streamIssues(77);
    const c = client({ storage });
    assert.deepEqual(await c.resume(7), { couponId: 7, outcome: 'ISSUED', walletCouponId: 77 });
    assert.equal(server.requests('POST', ISSUE).length, 0);
    assert.equal(server.requests('GET', EVENTS)[0].headers['last-event-id'], '7:w5');
    assert.equal(JSON.parse(storage.getItem('flash-coupon:claim:7')).state, 'ISSUED');

    assert.deepEqual(await c.resume(7), { couponId: 7, outcome: 'ISSUED', walletCouponId: 77 });
    assert.equal(server.requests('GET', EVENTS).length, 1);
    assert.equal(await c.resume(99), null);
  });
});
