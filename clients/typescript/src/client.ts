import { abortReason, backoffDelay, retryAfterMs, serverNow, sleep } from './backoff.js';
import { solve } from './proof.js';
import { solveArgon2id, type Argon2Parameters } from './argon2.js';
import { readStream, SseParser, type SseEvent } from './sse.js';
import { Claims, memoryStorage } from './storage.js';
import type { ClaimOptions, ClaimResult, ClaimUpdate, CouponClientOptions, Platform } from './types.js';

/** The status resource of docs/http-api.md, as far as the client acts on it. */
interface Status {
  couponId: number;
  status: 'WAITING' | 'ISSUED' | 'FAILED';
  position?: number | null;
  estimatedWaitSeconds?: number | null;
  estimatedWaitMillis?: number | null;
  walletCouponId?: number | null;
  failureReason?: string;
  drawAt?: string;
  draw?: { state: 'OPEN' | 'DRAWING'; entrants: number; places: number; chance: number };
}

interface Answer {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

/** The widest spread of a crowd's first ask after `openAt`. */
const OPEN_JITTER_MS = 1000;
/** Stream failures in a row before the client reads the status instead. */
const STREAM_FAILURES = 3;
/** The poll interval when the server suggests none. */
const DEFAULT_POLL_MS = 5000;

const isFinal = (status: Status) => status.status === 'ISSUED' || status.status === 'FAILED';

function resultOf(status: Status): ClaimResult {
  return status.status === 'ISSUED' && status.walletCouponId != null
    ? { couponId: status.couponId, outcome: 'ISSUED', walletCouponId: status.walletCouponId }
    : { couponId: status.couponId, outcome: 'FAILED', reason: status.failureReason ?? 'UNKNOWN' };
}

function failed(couponId: number, reason: string): Status {
  return { couponId, status: 'FAILED', failureReason: reason };
}

function updateOf(status: Status): ClaimUpdate {
  const update: ClaimUpdate = { couponId: status.couponId, phase: 'WAITING' };
  if (status.position != null) {
    update.position = status.position;
  }
  const millis = status.estimatedWaitMillis ?? (status.estimatedWaitSeconds != null ? status.estimatedWaitSeconds * 1000 : null);
  if (millis != null) {
    update.estimatedWaitMs = millis;
  }
  if (status.draw) {
    update.draw = { ...status.draw, drawAt: status.drawAt };
  }
  return update;
}

/**
 * The member's client of flash-coupon (docs/clients.md): claims coupons and follows them to their outcome, handling
 * every answer of the contract (202/200, 409 NOT_OPEN and SOLD_OUT, 428, 429 and 503 with Retry-After, network
 * errors, 401), on the live stream with Last-Event-ID, or by reading the status at the interval the server suggests.
 */
export class CouponClient {
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly claims: Claims;
  private readonly baseMs: number;
  private readonly capMs: number;
  private readonly maxAttempts: number;
  private readonly streamTimeoutMs: number;
  private readonly useWorker: boolean;
  private token: string | undefined;

  constructor(private readonly options: CouponClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.claims = new Claims(options.storage ?? memoryStorage());
    this.baseMs = options.backoff?.baseMs ?? 1000;
    this.capMs = options.backoff?.capMs ?? 30000;
    this.maxAttempts = options.maxAttempts ?? 40;
    this.streamTimeoutMs = options.streamTimeoutMs ?? 45000;
    this.useWorker = options.useWorker ?? true;
  }

  /** Claims one coupon: resolves to ISSUED with the wallet coupon, or FAILED with the reason. */
  async claim(couponId: number, options: ClaimOptions = {}): Promise<ClaimResult> {
    const results = await this.claimAll([couponId], options);
    return results.get(couponId)!;
  }

  /** Claims several coupons: the admissions side by side, then one live stream for all that hold a place. */
  async claimAll(couponIds: number[], options: ClaimOptions = {}): Promise<Map<number, ClaimResult>> {
    const statuses = await Promise.all(couponIds.map((id) => this.admit(id, options)));
    return this.follow(statuses, options, undefined);
  }

  /**
   * Picks up a claim made before the app was killed, from storage: its result once decided, else the claim followed
   * again (asked again when it was never answered: asking is idempotent). Null when storage holds no such claim.
   */
  async resume(couponId: number, options: ClaimOptions = {}): Promise<ClaimResult | null> {
    const stored = await this.claims.get(couponId);
    if (!stored) {
      return null;
    }
    if (stored.state === 'ISSUED' || stored.state === 'FAILED') {
      return stored.state === 'ISSUED'
        ? { couponId, outcome: 'ISSUED', walletCouponId: stored.walletCouponId }
        : { couponId, outcome: 'FAILED', reason: stored.reason };
    }
    if (stored.state === 'CLAIMING') {
      return this.claim(couponId, options);
    }
    const results = await this.follow([{ couponId, status: 'WAITING' }], options, stored.lastEventId);
    return results.get(couponId)!;
  }

  /** Registers this device's push token for the member (idempotent). */
  async registerDevice(deviceToken: string, platform: Platform, signal?: AbortSignal): Promise<void> {
    let refreshed = false;
    for (let attempt = 0; ; ) {
      let answer: Answer;
      try {
        answer = await this.send('PUT', `/api/v1/me/devices/${encodeURIComponent(deviceToken)}`, signal, {
          body: JSON.stringify({ platform }),
          headers: { 'Content-Type': 'application/json' },
        });
      } catch (error) {
        if (signal?.aborted || attempt >= this.maxAttempts) {
          throw error;
        }
        await sleep(this.delay(attempt++, 0), signal);
        continue;
      }
      if (answer.status >= 200 && answer.status < 300) {
        return;
      }
      if (answer.status === 401 && !refreshed && (await this.refresh())) {
        refreshed = true;
        continue;
      }
      if ((answer.status === 429 || answer.status >= 500) && attempt < this.maxAttempts) {
        await sleep(this.delay(attempt++, retryAfterMs(answer.headers)), signal);
        continue;
      }
      throw new Error(`registerDevice: ${answer.status} ${String(answer.json.code ?? '')}`);
    }
  }

  private delay(attempt: number, retryAfter: number): number {
    return backoffDelay(attempt, retryAfter, this.baseMs, this.capMs);
  }

  private async currentToken(): Promise<string> {
    if (this.token === undefined) {
      const source = this.options.token;
      this.token = typeof source === 'function' ? await source() : source;
    }
    return this.token;
  }

  /** After a 401: a new token from the app's function; false when the token is a fixed string. */
  private async refresh(): Promise<boolean> {
    const source = this.options.token;
    if (typeof source !== 'function') {
      return false;
    }
    this.token = await source();
    return true;
  }

  private async send(
    method: string,
    path: string,
    signal: AbortSignal | undefined,
    init: { body?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const response = await this.fetchImpl(this.baseUrl + path, {
      method,
      body: init.body,
      signal,
      cache: 'no-store',
      headers: { Authorization: `Bearer ${await this.currentToken()}`, Accept: 'application/json', ...init.headers },
    });
    const text = await response.text();
    let json: Record<string, unknown> = {};
    try {
      const parsed: unknown = text ? JSON.parse(text) : {};
      if (parsed && typeof parsed === 'object') {
        json = parsed as Record<string, unknown>;
      }
    } catch {
      // not JSON: decided on the status alone
    }
    return { status: response.status, headers: response.headers, json };
  }

  /**
   * Asks for a place until an answer decides: a place (202, 200), or a refusal that asking again cannot change. Never
   * sooner than Retry-After, then with full jitter; 409 NOT_OPEN before openAt waits for it; 428 solves a proof of
   * work off the main thread; 401 asks the app for a new token once.
   */
  private async admit(couponId: number, options: ClaimOptions): Promise<Status> {
    const { signal, onUpdate } = options;
    await this.claims.put({ couponId, state: 'CLAIMING' });
    let attempt = 0;
    let refreshed = false;
    let proofs = 0;
    let proof: string | undefined;
    const retry = async (retryAfter: number): Promise<boolean> => {
      if (attempt >= this.maxAttempts) {
        return false;
      }
      const wait = this.delay(attempt++, retryAfter);
      onUpdate?.({ couponId, phase: 'RETRYING', at: Date.now() + wait });
      await sleep(wait, signal);
      return true;
    };
    const decided = async (status: Status): Promise<Status> => {
      if (isFinal(status)) {
        const result = resultOf(status);
        await this.claims.put({ couponId, state: result.outcome, walletCouponId: result.walletCouponId, reason: result.reason });
      } else {
        await this.claims.put({ couponId, state: 'WAITING' });
        onUpdate?.(updateOf(status));
      }
      return status;
    };
    for (;;) {
      if (signal?.aborted) {
        throw abortReason(signal);
      }
      let answer: Answer;
      try {
        answer = await this.send('POST', `/api/v1/coupons/${couponId}/issue-requests`, signal, {
          headers: proof ? { 'X-Coupon-Proof': proof } : {},
        });
      } catch (error) {
        if (signal?.aborted) {
          throw error;
        }
        if (!(await retry(0))) {
          return decided(failed(couponId, 'GAVE_UP'));
        }
        continue;
      }
      const code = typeof answer.json.code === 'string' ? answer.json.code : '';
      if (answer.status === 200 || answer.status === 202) {
        return decided({ ...(answer.json as unknown as Status), couponId });
      }
      if (answer.status === 401) {
        if (!refreshed && (await this.refresh())) {
          refreshed = true;
          continue;
        }
        return decided(failed(couponId, 'UNAUTHORIZED'));
      }
      if (answer.status === 409 && code === 'NOT_OPEN') {
        const wait = await this.untilOpen(couponId, signal);
        if (typeof wait === 'string') {
          return decided(failed(couponId, wait));
        }
        if (wait === null) {
          if (!(await retry(0))) {
            return decided(failed(couponId, 'GAVE_UP'));
          }
          continue;
        }
        onUpdate?.({ couponId, phase: 'NOT_OPEN_YET', at: Date.now() + wait });
        await sleep(wait, signal);
        continue;
      }
      if (answer.status === 428 || (answer.status === 403 && code === 'PROOF_INVALID' && proofs < 2)) {
        proofs++;
        onUpdate?.({ couponId, phase: 'SOLVING_PROOF' });
        const challenge = await this.challenge(couponId, signal);
        if (typeof challenge !== 'object') {
          return decided(failed(couponId, challenge));
        }
        proof = challenge.argon2
          ? await solveArgon2id(challenge.challenge, challenge.difficultyBits, challenge.argon2, signal)
          : await solve(challenge.challenge, challenge.difficultyBits, this.useWorker, signal);
        continue;
      }
      if ([408, 429, 500, 502, 503, 504].includes(answer.status)) {
        if (!(await retry(retryAfterMs(answer.headers)))) {
          return decided(failed(couponId, 'GAVE_UP'));
        }
        continue;
      }
      return decided(failed(couponId, code || `HTTP_${answer.status}`));
    }
  }

  /**
   * After 409 NOT_OPEN: how long to wait, from the event's openAt against the server's clock plus a random part of a
   * second; a reason when it will not open (closed, sold out); null to ask again after a backoff.
   */
  private async untilOpen(couponId: number, signal?: AbortSignal): Promise<number | string | null> {
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      let answer: Answer;
      try {
        answer = await this.send('GET', `/api/v1/coupons/${couponId}`, signal);
      } catch (error) {
        if (signal?.aborted) {
          throw error;
        }
        await sleep(this.delay(attempt, 0), signal);
        continue;
      }
      if (answer.status === 429 || answer.status >= 500) {
        await sleep(this.delay(attempt, retryAfterMs(answer.headers)), signal);
        continue;
      }
      if (answer.status !== 200) {
        return typeof answer.json.code === 'string' ? answer.json.code : 'NOT_OPEN';
      }
      const status = String(answer.json.status ?? '');
      const openAt = Date.parse(String(answer.json.openAt ?? ''));
      if (status === 'SCHEDULED' && !Number.isNaN(openAt)) {
        return Math.max(0, openAt - serverNow(answer.headers)) + Math.floor(Math.random() * OPEN_JITTER_MS);
      }
      if (status === 'OPEN') {
        return null;
      }
      return status === 'SOLD_OUT' ? 'SOLD_OUT' : 'NOT_OPEN';
    }
    return 'GAVE_UP';
  }

  private async challenge(
    couponId: number,
    signal?: AbortSignal,
  ): Promise<{ challenge: string; difficultyBits: number; argon2?: Argon2Parameters } | string> {
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      let answer: Answer;
      try {
        answer = await this.send('GET', `/api/v1/coupons/${couponId}/challenge`, signal);
      } catch (error) {
        if (signal?.aborted) {
          throw error;
        }
        await sleep(this.delay(attempt, 0), signal);
        continue;
      }
      if (answer.status === 429 || answer.status >= 500) {
        await sleep(this.delay(attempt, retryAfterMs(answer.headers)), signal);
        continue;
      }
      if (answer.status === 200 && typeof answer.json.challenge === 'string') {
        const algorithm = answer.json.algorithm ?? 'sha256';
        const difficultyBits = Number(answer.json.difficultyBits ?? 0);
        if (algorithm === 'argon2id' && answer.json.argon2 && typeof answer.json.argon2 === 'object') {
          const a = answer.json.argon2 as Record<string, unknown>;
          return {
            challenge: answer.json.challenge,
            difficultyBits,
            argon2: {
              memoryKiB: Number(a.memoryKiB),
              iterations: Number(a.iterations),
              parallelism: Number(a.parallelism ?? 1),
            },
          };
        }
        if (algorithm !== 'sha256') {
          return 'PROOF_INVALID'; // a rule this client does not know
        }
        return { challenge: answer.json.challenge, difficultyBits };
      }
      return typeof answer.json.code === 'string' ? answer.json.code : 'PROOF_INVALID';
    }
    return 'GAVE_UP';
  }

  /**
   * Follows the waiting claims to their outcome on one live stream (the coupon's own for one, /api/v1/me/events for
   * several), opened again with Last-Event-ID when it ends early; after STREAM_FAILURES failures in a row, or for a
   * coupon whose stream a newer one replaced, by reading the status at the interval the server suggests.
   */
  private async follow(
    statuses: Status[],
    options: ClaimOptions,
    lastEventId: string | undefined,
  ): Promise<Map<number, ClaimResult>> {
    const { signal } = options;
    const results = new Map<number, ClaimResult>();
    const streamed = new Set<number>();
    for (const status of statuses) {
      if (isFinal(status)) {
        results.set(status.couponId, resultOf(status));
      } else {
        streamed.add(status.couponId);
      }
    }
    const single = statuses.length === 1;
    const polls: Promise<void>[] = [];
    const poll = (couponId: number) => polls.push(this.poll(couponId, results, options));
    const told = async (status: Status, eventId?: string) => {
      if (results.has(status.couponId)) {
        return;
      }
      if (isFinal(status)) {
        const result = resultOf(status);
        results.set(status.couponId, result);
        streamed.delete(status.couponId);
        await this.claims.put({ couponId: status.couponId, state: result.outcome, walletCouponId: result.walletCouponId, reason: result.reason, lastEventId: eventId });
      } else {
        await this.claims.put({ couponId: status.couponId, state: 'WAITING', lastEventId: eventId });
        options.onUpdate?.(updateOf(status));
      }
    };
    let failures = 0;
    let attempt = 0;
    let refreshed = false;
    while (streamed.size > 0) {
      if (signal?.aborted) {
        throw abortReason(signal);
      }
      if (failures >= STREAM_FAILURES) {
        streamed.forEach(poll);
        streamed.clear();
        break;
      }
      const ids = [...streamed];
      const path = single
        ? `/api/v1/coupons/${ids[0]}/issue-requests/me/events`
        : `/api/v1/me/events?coupons=${ids.join(',')}`;
      const headers: Record<string, string> = {
        Authorization: `Bearer ${await this.currentToken()}`,
        Accept: 'text/event-stream',
      };
      if (lastEventId) {
        headers['Last-Event-ID'] = lastEventId;
      }
      let reconnect = false;
      let sawStatus = false;
      const stop = new AbortController();
      const onAbort = () => stop.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      const pending: Promise<void>[] = [];
      const parser = new SseParser((event: SseEvent) => {
        if (event.id !== undefined) {
          lastEventId = event.id;
        }
        let data: Record<string, unknown> = {};
        try {
          data = JSON.parse(event.data) as Record<string, unknown>;
        } catch {
          return;
        }
        const couponId = Number(data.couponId);
        if (event.event === 'status') {
          sawStatus = true;
          pending.push(told(data as unknown as Status, lastEventId));
          if (streamed.size === 0) {
            stop.abort();
          }
        } else if (event.event === 'replaced') {
          // a newer stream follows this coupon (another screen or device): read its status instead
          if (streamed.delete(couponId) && !results.has(couponId)) {
            poll(couponId);
          }
          if (streamed.size === 0) {
            stop.abort();
          }
        } else if (event.event === 'reconnect') {
          reconnect = true;
        }
      });
      const end = await readStream(this.fetchImpl, this.baseUrl + path, headers, (text) => parser.push(text), this.streamTimeoutMs, stop.signal);
      signal?.removeEventListener('abort', onAbort);
      await Promise.all(pending);
      if (streamed.size === 0) {
        break;
      }
      if (signal?.aborted) {
        throw abortReason(signal);
      }
      if (sawStatus) {
        failures = 0;
        attempt = 0;
      }
      if (end.kind === 'closed' && reconnect) {
        await sleep(Math.floor(Math.random() * 1000), signal);
        continue;
      }
      if (end.kind === 'refused') {
        if (end.status === 401 && !refreshed && (await this.refresh())) {
          refreshed = true;
          continue;
        }
        if ([400, 401, 403, 404].includes(end.status)) {
          // the api does not know one of the requests, or will not stream them: read each one's status
          streamed.forEach(poll);
          streamed.clear();
          break;
        }
      }
      failures++;
      if (failures < STREAM_FAILURES) {
        await sleep(this.delay(attempt++, end.kind === 'refused' ? retryAfterMs(end.headers) : 0), signal);
      }
    }
    await Promise.all(polls);
    const ordered = new Map<number, ClaimResult>();
    for (const status of statuses) {
      ordered.set(status.couponId, results.get(status.couponId)!);
    }
    return ordered;
  }

  /** Reads one coupon's status at the interval the server suggests (X-Coupon-Poll-After) until it is final. */
  private async poll(couponId: number, results: Map<number, ClaimResult>, options: ClaimOptions): Promise<void> {
    const { signal, onUpdate } = options;
    let attempt = 0;
    let refreshed = false;
    while (!results.has(couponId)) {
      let answer: Answer;
      try {
        answer = await this.send('GET', `/api/v1/coupons/${couponId}/issue-requests/me`, signal);
      } catch (error) {
        if (signal?.aborted) {
          throw error;
        }
        await sleep(this.delay(Math.min(attempt++, 10), 0), signal);
        continue;
      }
      if (answer.status === 200) {
        attempt = 0;
        const status = { ...(answer.json as unknown as Status), couponId };
        if (isFinal(status)) {
          const result = resultOf(status);
          results.set(couponId, result);
          await this.claims.put({ couponId, state: result.outcome, walletCouponId: result.walletCouponId, reason: result.reason });
          return;
        }
        onUpdate?.(updateOf(status));
        const after = Number(answer.headers.get('X-Coupon-Poll-After'));
        await sleep(after > 0 ? after * 1000 : DEFAULT_POLL_MS, signal);
      } else if (answer.status === 401 && !refreshed && (await this.refresh())) {
        refreshed = true;
      } else if (answer.status === 429 || answer.status >= 500) {
        await sleep(this.delay(Math.min(attempt++, 10), retryAfterMs(answer.headers)), signal);
      } else if (answer.status === 404) {
        // Redis lost the request and MySQL has no outcome for it: the contract says ask again
        const status = await this.admit(couponId, options);
        if (isFinal(status)) {
          results.set(couponId, resultOf(status));
          return;
        }
      } else {
        results.set(couponId, { couponId, outcome: 'FAILED', reason: String(answer.json.code ?? `HTTP_${answer.status}`) });
        return;
      }
    }
  }
}
