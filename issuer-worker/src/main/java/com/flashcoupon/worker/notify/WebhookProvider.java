package com.flashcoupon.worker.notify;

import com.flashcoupon.contract.IssueResult;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * A generic JSON webhook: one {@code POST} per push with the result and the device. 2xx: delivered; 404 or 410: the
 * token is unknown there, drop it; 429 and 5xx: retry; any other answer: rejected.
 */
final class WebhookProvider implements PushProvider {

    private final HttpClient http;
    private final URI url;
    private final String authorization;
    private final Duration timeout;
    private final Clock clock;
    private final JsonMapper json = JsonMapper.builder().build();

    WebhookProvider(HttpClient http, URI url, String authorization, Duration timeout, Clock clock) {
        this.http = http;
        this.url = url;
        this.authorization = authorization;
        this.timeout = timeout;
        this.clock = clock;
    }

    @Override
    public Delivery send(Push push) {
        HttpRequest.Builder request = HttpRequest.newBuilder(url)
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body(push))));
        if (authorization != null && !authorization.isBlank()) {
            request.header("Authorization", authorization);
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            return Delivery.retry(null, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Delivery.retry(null, "interrupted");
        }
        int status = response.statusCode();
        if (HttpAnswers.isSuccess(status)) {
            return Delivery.delivered();
        }
        if (HttpAnswers.isRetryable(status)) {
            return HttpAnswers.retry(response, clock.instant());
        }
        if (status == 404 || status == 410) {
            return Delivery.unregistered(status + " " + HttpAnswers.brief(response.body()));
        }
        return Delivery.rejected(status + " " + HttpAnswers.brief(response.body()));
    }

    static Map<String, Object> body(Push push) {
        IssueResult result = push.result();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("eventId", result.eventId());
        body.put("deviceToken", push.device().token());
        body.put("platform", push.device().platform());
        body.put("memberId", result.memberId());
        body.put("couponId", result.couponId());
        body.put("outcome", result.outcome().name());
        body.put("walletCouponId", result.walletCouponId());
        body.put("failureReason", result.failureReason());
        body.put("decidedAt", result.decidedAt());
        body.put("title", push.title());
        body.put("body", push.body());
        return body;
    }
}
