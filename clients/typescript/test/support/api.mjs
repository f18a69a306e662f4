// Helpers for the tests against a real api: FC_API_URL and FC_JWT_SECRET (HS256) come from the environment (the
// client-tests module starts the api and the worker and passes them).
import { createHmac } from 'node:crypto';

export const API = process.env.FC_API_URL;
const SECRET = process.env.FC_JWT_SECRET;

const base64url = (value) => Buffer.from(value).toString('base64url');

/** An HS256 token for `sub`, with these roles, valid for an hour (expiresIn seconds when given). */
export function token(sub, roles = [], expiresIn = 3600) {
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = base64url(JSON.stringify({ sub, roles, exp: Math.floor(Date.now() / 1000) + expiresIn }));
  const signature = createHmac('sha256', SECRET).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

/** Creates an event through the admin API (open five seconds ago unless openAt is given); its id. */
export async function createCoupon(fields = {}) {
  const openAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 5000).toISOString();
  const response = await fetch(`${API}/admin/v1/coupons`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token('operator', ['coupon-admin'])}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'ts client test', totalQuantity: 10, issueRatePerSecond: 100, openAt, ...fields }),
  });
  if (response.status !== 201) {
    throw new Error(`create coupon: ${response.status} ${await response.text()}`);
  }
  return (await response.json()).id;
}

/** The member's wallet as the api lists it. */
export async function wallet(member) {
  const response = await fetch(`${API}/api/v1/me/coupons`, { headers: { Authorization: `Bearer ${token(member)}` } });
  return response.json();
}

export const secondsFromNow = (seconds) => new Date(Math.floor(Date.now() / 1000) * 1000 + seconds * 1000).toISOString();
