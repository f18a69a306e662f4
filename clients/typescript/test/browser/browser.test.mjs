// The built bundle (dist/browser/flash-coupon-client.js) in headless Chromium, on a page served with the api behind
// the same origin (as an app is, or through its gateway): a proof of work solved in a Web Worker, and a claim resumed
// from localStorage after the page was reloaded mid-way.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { chromium } from 'playwright-core';
import { API, createCoupon, token, wallet } from '../support/api.mjs';

if (!API) {
  throw new Error('FC_API_URL is not set: run these through the client-tests module (bin/test -pl clients/tests -am)');
}

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const dist = new URL('../../dist/browser/flash-coupon-client.js', import.meta.url);
const page = new URL('./page.html', import.meta.url);

let server;
let origin;
let browser;

/** Serves the page and the bundle, and passes /api/ through to the api (streams included). */
async function serve() {
  const target = new URL(API);
  const s = http.createServer(async (req, res) => {
    if (req.url.startsWith('/api/')) {
      const upstream = http.request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
        (answer) => {
          res.writeHead(answer.statusCode, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
      return;
    }
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/flash-coupon-client.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      res.end(await readFile(dist));
    } else if (path === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(await readFile(page));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  return s;
}

before(async () => {
  server = await serve();
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
});

after(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve());
});

async function outcome(tab) {
  await tab.waitForFunction(() => window.__result !== undefined, null, { timeout: 90000 });
  return tab.evaluate(() => window.__result);
}

test('a page claims with a proof of work solved in a Web Worker', async () => {
  const coupon = await createCoupon({ humanCheck: { type: 'PROOF_OF_WORK', difficultyBits: 14 } });
  const tab = await browser.newPage();
  await tab.goto(`${origin}/?coupon=${coupon}&token=${token('web-prover')}`);
  const { result, worker, error } = await outcome(tab);
  assert.equal(error, undefined);
  assert.equal(result.outcome, 'ISSUED');
  assert.equal(worker, true, 'solved in a Web Worker');
  const entry = (await wallet('web-prover')).find((w) => w.couponId === coupon);
  assert.equal(result.walletCouponId, entry.walletCouponId);
  await tab.close();
});

test('a page reloaded while waiting resumes its claim from localStorage', async () => {
  const coupon = await createCoupon({ issueRatePerSecond: 1 });
  for (let i = 0; i < 3; i++) {
    await fetch(`${API}/api/v1/coupons/${coupon}/issue-requests`, {
      method: 'POST', headers: { Authorization: `Bearer ${token(`web-ahead-${i}`)}` },
    });
  }
  const member = token('web-reloaded');
  const tab = await browser.newPage();
  await tab.goto(`${origin}/?coupon=${coupon}&token=${member}`);
  await tab.waitForFunction(() => (window.__updates ?? []).some((u) => u.position), null, { timeout: 90000 });
  await tab.goto(`${origin}/?coupon=${coupon}&token=${member}&mode=resume`);
  const { result, error } = await outcome(tab);
  assert.equal(error, undefined);
  assert.equal(result.outcome, 'ISSUED');
  await tab.close();
});
