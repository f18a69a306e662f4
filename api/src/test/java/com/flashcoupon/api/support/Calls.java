package com.flashcoupon.api.support;

import java.net.URI;
import org.springframework.http.HttpMethod;
import org.springframework.test.web.reactive.server.WebTestClient;

/** One request with a bearer token, an optional body and content type, and the path exactly as written. */
public final class Calls {

    private Calls() {}

    /** {@code path} is sent pre-encoded (percent escapes reach the server as written); null type and body: none. */
    public static WebTestClient.ResponseSpec call(
            WebTestClient http, HttpMethod method, String path, String token, String contentType, String body) {
        var request = http.method(method).uri(URI.create(path)).header("Authorization", "Bearer " + token);
        if (contentType != null) {
            request = request.header("Content-Type", contentType);
        }
        return (body == null ? request : request.bodyValue(body)).exchange();
    }
}
