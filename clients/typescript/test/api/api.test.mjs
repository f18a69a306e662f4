// The TypeScript client against the real api and worker (started by the client-tests module): a crowd admitted and
// issued or told sold out, a proof of work, a fair start's draw, an event not open yet, a claim resumed after a
// restart, a stream cut and resumed with Last-Event-ID, several coupons on one stream, an expiring token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { CouponClient, memoryStorage } from '../../dist/index.js';
import { API, createCoupon, secondsFromNow, token, wallet } from '../support/api.mjs';

if (!API) {
  throw new Error('FC_API_URL is not set: run these through the client-tests module (bin/test -pl clients/tests -am)');
}

const client = (member, options = {}) =>
  new CouponClient({ baseUrl: API, token: () => token(member), backoff: { baseMs: 200, capMs: 3000 }, ...options });

async function walletId(member, couponId) {
  const entry = (await wallet(member)).find((w) => w.couponId === couponId);
  return entry?.walletCouponId;
}

/** A TCP proxy in front of the api that can cut every connection, and keeps the heads of the requests through it. */
async function cutProxy() {
  const target = new URL(API);
  const sockets = new Set();
  const heads = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    client.on('data', (chunk) => {
      const text = chunk.toString('latin1');
      if (/^(GET|POST|PUT|DELETE) /.test(text)) {
        heads.push(text.split('\r\n\r\n')[0]);
      }
    });
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    heads,
    cutAll() {
      for (const socket of sockets) {
        socket.destroy();
      }
      sockets.clear();
    },
    close() {
      this.cutAll();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

test('a crowd: the first members are issued, the rest told SOLD_OUT', async () => {
  const coupon = await createCoupon({ totalQuantity: 25, issueRatePerSecond: 200 });
  const members = Array.from({ length: 60 }, (_, i) => `ts-crowd-${i}`);
  const results = await Promise.all(members.map((m) => client(m).claim(coupon)));
  const issued = results.filter((r) => r.outcome === 'ISSUED');
  assert.equal(issued.length, 25);
  assert.ok(results.filter((r) => r.outcome === 'FAILED').every((r) => r.reason === 'SOLD_OUT'));
  const first = members[results.findIndex((r) => r.outcome === 'ISSUED')];
  assert.equal(await walletId(first, coupon), issued.find((_, i) => i === 0).walletCouponId);
});

test('a proof of work is solved and sent', async () => {
  const coupon = await createCoupon({ humanCheck: { type: 'PROOF_OF_WORK', difficultyBits: 12 } });
  const updates = [];
  const result = await client('ts-prover').claim(coupon, { onUpdate: (u) => updates.push(u) });
  assert.equal(result.outcome, 'ISSUED');
  assert.equal(result.walletCouponId, await walletId('ts-prover', coupon));
  assert.ok(updates.some((u) => u.phase === 'SOLVING_PROOF'));
});

test('a memory-hard proof of work (Argon2id) is solved and sent', async () => {
  // the api refuses a SHA-256 proof for an ARGON2ID event: issued means hash-wasm solved the puzzle the challenge named
  const coupon = await createCoupon({ humanCheck: { type: 'ARGON2ID', difficultyBits: 4 } });
  const updates = [];
  const result = await client('ts-argon-prover').claim(coupon, { onUpdate: (u) => updates.push(u) });
  assert.equal(result.outcome, 'ISSUED');
  assert.equal(result.walletCouponId, await walletId('ts-argon-prover', coupon));
  assert.ok(updates.some((u) => u.phase === 'SOLVING_PROOF'));
});

test('a fair start: the draw places two of five, the others are told SOLD_OUT', async () => {
  // the window opens a few seconds ahead, so that the members (who wait for it) all ask within it
  const openAt = secondsFromNow(4);
  const coupon = await createCoupon({
    totalQuantity: 2, openAt, queueing: 'RANDOMIZED_START', queueingWindowSeconds: 8,
  });
  const asked = Date.now();
  const updates = [];
  const results = await Promise.all(
    Array.from({ length: 5 }, (_, i) => client(`ts-drawn-${i}`).claim(coupon, { onUpdate: (u) => updates.push(u) })));
  assert.equal(results.filter((r) => r.outcome === 'ISSUED').length, 2);
  assert.deepEqual([...new Set(results.filter((r) => r.outcome === 'FAILED').map((r) => r.reason))], ['SOLD_OUT']);
  if (asked < Date.parse(openAt)) {
    assert.ok(updates.some((u) => u.phase === 'NOT_OPEN_YET'));
    assert.ok(updates.some((u) => u.draw && u.draw.entrants >= 1));
  }
});

test('an event not open yet is asked for once it opens', async () => {
  const openAt = secondsFromNow(6);
  const coupon = await createCoupon({ openAt });
  const asked = Date.now();
  const updates = [];
  const result = await client('ts-early').claim(coupon, { onUpdate: (u) => updates.push(u) });
  assert.equal(result.outcome, 'ISSUED');
  if (asked < Date.parse(openAt) - 1000) {
    assert.ok(updates.some((u) => u.phase === 'NOT_OPEN_YET'));
  }
});

test('a claim resumed by a new client after a restart, with no new admission', async () => {
  const coupon = await createCoupon({ issueRatePerSecond: 1 });
  for (let i = 0; i < 3; i++) {
    client(`ts-ahead-${i}`).claim(coupon);
  }
  const proxy = await cutProxy();
  try {
    const storage = memoryStorage();
    const controller = new AbortController();
    let waiting;
    const seen = new Promise((resolve) => { waiting = resolve; });
    const killed = client('ts-restarted', { baseUrl: proxy.url, storage })
      .claim(coupon, { signal: controller.signal, onUpdate: (u) => u.position && waiting() });
    await seen;
    controller.abort(new Error('the app was killed'));
    await assert.rejects(killed);
    proxy.cutAll();
    assert.equal(JSON.parse(storage.getItem(`flash-coupon:claim:${coupon}`)).state, 'WAITING');
    const posts = proxy.heads.filter((h) => h.startsWith('POST ')).length;

    const result = await client('ts-restarted', { baseUrl: proxy.url, storage }).resume(coupon);
    assert.equal(result.outcome, 'ISSUED');
    assert.equal(result.walletCouponId, await walletId('ts-restarted', coupon));
    assert.equal(proxy.heads.filter((h) => h.startsWith('POST ')).length, posts);
  } finally {
    await proxy.close();
  }
});

test('a stream cut mid-way is opened again with Last-Event-ID', async () => {
  const coupon = await createCoupon({ issueRatePerSecond: 1 });
  for (let i = 0; i < 3; i++) {
    client(`ts-before-cut-${i}`).claim(coupon);
  }
  const proxy = await cutProxy();
  try {
    let updates = 0;
    let second;
    const twice = new Promise((resolve) => { second = resolve; });
    const claim = client('ts-cut', { baseUrl: proxy.url }).claim(coupon, { onUpdate: () => ++updates >= 2 && second() });
    await twice;
    proxy.cutAll();
    const result = await claim;
    assert.equal(result.outcome, 'ISSUED');
    const streams = proxy.heads.filter((h) => h.startsWith(`GET /api/v1/coupons/${coupon}/issue-requests/me/events`));
    assert.ok(streams.length >= 2, `${streams.length} streams`);
    assert.match(streams[1], new RegExp(`last-event-id: ${coupon}:`, 'i'));
  } finally {
    await proxy.close();
  }
});

test('several coupons over one stream', async () => {
  const first = await createCoupon({ issueRatePerSecond: 2 });
  const second = await createCoupon({ issueRatePerSecond: 2, totalQuantity: 1 });
  await client('ts-taker').claim(second);
  const proxy = await cutProxy();
  try {
    const results = await client('ts-several', { baseUrl: proxy.url }).claimAll([first, second]);
    assert.equal(results.get(first).outcome, 'ISSUED');
    assert.deepEqual(results.get(second), { couponId: second, outcome: 'FAILED', reason: 'SOLD_OUT' });
    assert.ok(proxy.heads.some((h) => h.startsWith('GET /api/v1/me/events?coupons=')));
    assert.ok(!proxy.heads.some((h) => h.startsWith('GET /api/v1/coupons/')));
  } finally {
    await proxy.close();
  }
});

test('an expired token is replaced by the app once, and the claim goes on', async () => {
  const coupon = await createCoupon();
  let calls = 0;
  const result = await new CouponClient({
    baseUrl: API,
    token: () => (++calls === 1 ? token('ts-expiring', [], -120) : token('ts-expiring')),
  }).claim(coupon);
  assert.equal(result.outcome, 'ISSUED');
  assert.equal(calls, 2);
});
