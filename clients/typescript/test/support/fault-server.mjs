// A local server for the client's fault tests: each route answers as the test scripts it, by the number of the call,
// and every request is recorded with the moment it arrived.
import http from 'node:http';

export async function faultServer() {
  const routes = new Map();
  const calls = new Map();
  const seen = [];
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    const key = `${req.method} ${url.pathname}`;
    seen.push({ method: req.method, path: url.pathname, query: url.search, headers: req.headers, at: performance.now() });
    for await (const _ of req) {
      // read the body whole
    }
    const script = routes.get(key);
    if (!script) {
      problem(res, 404, 'NOT_FOUND');
      return;
    }
    const call = (calls.get(key) ?? 0) + 1;
    calls.set(key, call);
    await script({ req, res, call });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    seen,
    on(method, path, script) {
      routes.set(`${method} ${path}`, script);
    },
    requests(method, path) {
      return seen.filter((s) => s.method === method && s.path === path);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

export function json(res, status, body, headers = {}) {
  res.writeHead(status, { 'Content-Type': status >= 400 ? 'application/problem+json' : 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

export function problem(res, status, code, headers = {}) {
  json(res, status, { status, code }, headers);
}

/** Starts an event stream; `send` writes one event. */
export function stream(res) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  return {
    send(event, data, id) {
      res.write(`event:${event}\n${id ? `id:${id}\n` : ''}data:${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    },
    end() {
      res.end();
    },
    cut() {
      res.socket.destroy();
    },
  };
}

export const waiting = (couponId, position) => ({
  couponId, memberId: 'm', status: 'WAITING', position, estimatedWaitSeconds: position, walletCouponId: null,
  estimatedWaitMillis: position * 1000,
});
export const issued = (couponId, walletCouponId) => ({
  couponId, memberId: 'm', status: 'ISSUED', position: null, estimatedWaitSeconds: null, walletCouponId,
});
export const failedStatus = (couponId, failureReason) => ({
  couponId, memberId: 'm', status: 'FAILED', position: null, estimatedWaitSeconds: null, walletCouponId: null,
  failureReason,
});
