package com.flashcoupon.api.redemption;

/**
 * The one state machine of a wallet coupon (docs/architecture.md, "Redeeming a coupon"): AVAILABLE to RESERVED (an
 * order holds it) to USED (confirmed); a reservation released or timed out, or a use cancelled, goes back to AVAILABLE,
 * or to EXPIRED once past the coupon's {@code expiresAt}; an AVAILABLE coupon past it becomes EXPIRED.
 */
public enum WalletState {
    AVAILABLE,
    RESERVED,
    USED,
    EXPIRED;

    /** The state as readers see it: an AVAILABLE coupon past its expiry is EXPIRED before the expiry job records it. */
    public static WalletState seen(String stored, boolean pastExpiry) {
        WalletState state = valueOf(stored);
        return state == AVAILABLE && pastExpiry ? EXPIRED : state;
    }
}
