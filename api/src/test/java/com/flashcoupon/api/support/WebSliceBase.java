package com.flashcoupon.api.support;

import java.net.URI;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.HttpMethod;
import org.springframework.test.web.reactive.server.WebTestClient;

/** The client and one request helper for {@link WebSliceTest} classes. */
public abstract class WebSliceBase {

    @Autowired
    protected WebTestClient http;

    /**
     * One request with a bearer token; {@code path} is sent pre-encoded (percent escapes reach the server as written);
     * a null type or body sends none.
     */
    protected WebTestClient.ResponseSpec call(
            HttpMethod method, String path, String token, String contentType, String body) {
        var request = http.method(method).uri(URI.create(path)).header("Authorization", "Bearer " + token);
        if (contentType != null) {
            request = request.header("Content-Type", contentType);
        }
        return (body == null ? request : request.bodyValue(body)).exchange();
    }
}
