/**
 * The wait before retry number `attempt` (0 for the first): never sooner than the server's `Retry-After`, plus a
 * full-jitter exponential delay, `random(0, min(cap, base * 2^attempt))`. The jitter keeps a crowd that was refused in
 * the same second from coming back in the same second: each member lands somewhere in a window that doubles with each
 * refusal.
 */
export function backoffDelay(
  attempt: number,
  retryAfterMs: number,
  baseMs: number,
  capMs: number,
  random: () => number = Math.random,
): number {
  let window = baseMs * Math.pow(2, Math.min(attempt, 20));
  if (!(window > 0) || window > capMs) {
    window = capMs;
  }
  return Math.max(0, retryAfterMs) + Math.floor(random() * window);
}

/** `Retry-After` in milliseconds: whole seconds, or an HTTP date against the answer's own `Date`; 0 without one. */
export function retryAfterMs(headers: Headers): number {
  const value = headers.get('Retry-After');
  if (!value) {
    return 0;
  }
  if (/^\s*\d+\s*$/.test(value)) {
    return Number(value.trim()) * 1000;
  }
  const at = Date.parse(value);
  if (Number.isNaN(at)) {
    return 0;
  }
  return Math.max(0, at - serverNow(headers));
}

/** The server's clock when it answered (its `Date` header), else this device's. */
export function serverNow(headers: Headers): number {
  const date = headers.get('Date');
  const parsed = date ? Date.parse(date) : NaN;
  return Number.isNaN(parsed) ? Date.now() : parsed;
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The claim was aborted.', 'AbortError');
}
