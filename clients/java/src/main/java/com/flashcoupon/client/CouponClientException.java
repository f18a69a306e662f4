package com.flashcoupon.client;

/** A call other than a claim that the api refused ({@link #code} is its problem code) or that never got an answer. */
public final class CouponClientException extends RuntimeException {

    private final String code;

    public CouponClientException(String code, Throwable cause) {
        super(code, cause);
        this.code = code;
    }

    public String code() {
        return code;
    }
}
