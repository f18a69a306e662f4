/** How a claim ended. */
export interface ClaimResult {
  couponId: number;
  outcome: 'ISSUED' | 'FAILED';
  /** Once ISSUED: the coupon in the member's wallet. */
  walletCouponId?: number;
  /**
   * Once FAILED: the server's `failureReason` (`SOLD_OUT`, `UNPROCESSABLE`), the problem code that refused the claim
   * (`SOLD_OUT`, `NOT_OPEN` once the event is closed, `NOT_ELIGIBLE`, `PROOF_INVALID`, `COUPON_NOT_FOUND`,
   * `UNAUTHORIZED`, `FORBIDDEN`, `INVALID_REQUEST`), or `GAVE_UP` when the client's own attempts ran out.
   */
  reason?: string;
}

/** A draw not made yet (a fair start's window): its state and the member's odds as things stand. */
export interface DrawOdds {
  state: 'OPEN' | 'DRAWING';
  entrants: number;
  places: number;
  chance: number;
  drawAt?: string;
}

/** What the app may show while a claim is under way, each time it changes. */
export interface ClaimUpdate {
  couponId: number;
  phase: 'NOT_OPEN_YET' | 'SOLVING_PROOF' | 'RETRYING' | 'WAITING';
  /** While WAITING: the place in line (absent in a draw not made yet). */
  position?: number;
  /** While WAITING: the estimated wait in milliseconds. */
  estimatedWaitMs?: number;
  /** While waiting for a draw: its odds. */
  draw?: DrawOdds;
  /** While NOT_OPEN_YET or RETRYING: when the client asks again (epoch milliseconds). */
  at?: number;
}

export interface ClaimOptions {
  onUpdate?: (update: ClaimUpdate) => void;
  signal?: AbortSignal;
}

/**
 * Where claims are kept so that `resume` finds them after the app was killed. `localStorage` and React Native's
 * `AsyncStorage` fit as they are (getItem, setItem, removeItem, synchronous or not).
 */
export interface ClaimStorage {
  getItem(key: string): string | null | Promise<string | null>;
  setItem(key: string, value: string): void | Promise<void>;
  removeItem(key: string): void | Promise<void>;
}

export type Platform = 'ANDROID' | 'IOS' | 'WEB';

export interface CouponClientOptions {
  /** The api's base URL, such as `https://coupons.example.com` (`''` for the page's own origin). */
  baseUrl: string;
  /** The member's token, or a function giving it: called again (once) after a 401. */
  token: string | (() => string | Promise<string>);
  /** Where claims are kept for `resume` (default: memory). */
  storage?: ClaimStorage;
  /** The jitter window of the first retry and its cap, in milliseconds (default 1,000 and 30,000). */
  backoff?: { baseMs: number; capMs: number };
  /** Retries of one step before a claim fails `GAVE_UP` (default 40). */
  maxAttempts?: number;
  /** How long a live stream may be silent before it counts as cut (default 45,000 ms: three heartbeats). */
  streamTimeoutMs?: number;
  /** `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
  /** Solve proofs of work in a Web Worker where there is one (default true). */
  useWorker?: boolean;
}

/** A claim as storage keeps it. */
export interface StoredClaim {
  couponId: number;
  state: 'CLAIMING' | 'WAITING' | 'ISSUED' | 'FAILED';
  walletCouponId?: number;
  reason?: string;
  lastEventId?: string;
  updatedAt: number;
}
