package com.flashcoupon.loadgen.engine;

import io.netty.handler.codec.http.HttpMethod;

/**
 * One request of a load run: a method, a path relative to the runner's base URL, an optional bearer token and an
 * optional JSON body.
 */
public record HttpCall(HttpMethod method, String path, String bearerToken, String jsonBody) {

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
