export { CouponClient } from './client.js';
export { backoffDelay } from './backoff.js';
export { memoryStorage, webStorage, asyncStorage } from './storage.js';
export { solvedIn } from './proof.js';
export type {
  ClaimOptions,
  ClaimResult,
  ClaimStorage,
  ClaimUpdate,
  CouponClientOptions,
  DrawOdds,
  Platform,
  StoredClaim,
} from './types.js';
