import type { ClaimStorage, StoredClaim } from './types.js';

/** Claims kept in memory: for tests, and apps that need not resume after a restart. */
export function memoryStorage(): ClaimStorage {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => {
      items.set(key, value);
    },
    removeItem: (key) => {
      items.delete(key);
    },
  };
}

/** The browser's `localStorage` (or `sessionStorage`): claims survive a reload and a closed tab. */
export function webStorage(storage: Storage = globalThis.localStorage): ClaimStorage {
  return storage;
}

/** React Native's AsyncStorage (`@react-native-async-storage/async-storage`), which the app passes in. */
export function asyncStorage(storage: {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
}): ClaimStorage {
  return storage;
}

const PREFIX = 'flash-coupon:claim:';

/** Reads and writes StoredClaims in a ClaimStorage; a storage that fails never fails a claim. */
export class Claims {
  constructor(private readonly storage: ClaimStorage) {}

  async get(couponId: number): Promise<StoredClaim | null> {
    try {
      const text = await this.storage.getItem(PREFIX + couponId);
      return text ? (JSON.parse(text) as StoredClaim) : null;
    } catch {
      return null;
    }
  }

  async put(claim: Omit<StoredClaim, 'updatedAt'>): Promise<void> {
    try {
      await this.storage.setItem(PREFIX + claim.couponId, JSON.stringify({ ...claim, updatedAt: Date.now() }));
    } catch {
      // a full or unavailable storage costs the ability to resume, not the claim
    }
  }

  async remove(couponId: number): Promise<void> {
    try {
      await this.storage.removeItem(PREFIX + couponId);
    } catch {
      // as above
    }
  }
}
