package com.flashcoupon.loadgen.engine;

import io.netty.handler.codec.http.HttpMethod;

/**
 * One request of a load run: a method, a path relative to the runner's base URL, an optional bearer token, an
 * optional JSON body and an optional {@code X-Coupon-Proof} (an event with a human check, issue 26).
 */
public record HttpCall(HttpMethod method, String path, String bearerToken, String jsonBody, String proof) {

    public HttpCall(HttpMethod method, String path, String bearerToken, String jsonBody) {
        this(method, path, bearerToken, jsonBody, null);
    }

    /** The same call with {@code X-Coupon-Proof} (null: none). */
    public HttpCall withProof(String proof) {
        return new HttpCall(method, path, bearerToken, jsonBody, proof);
    }

    public static HttpCall get(String path, String bearerToken) {
        return new HttpCall(HttpMethod.GET, path, bearerToken, null);
    }

    /** A POST without a body ({@code Content-Length: 0}). */
    public static HttpCall post(String path, String bearerToken) {
        return new HttpCall(HttpMethod.POST, path, bearerToken, null);
    }

    public static HttpCall post(String path, String bearerToken, String jsonBody) {
        return new HttpCall(HttpMethod.POST, path, bearerToken, jsonBody);
    }
}
