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
import java.util.function.Supplier;
import tools.jackson.databind.json.JsonMapper;

/**
 * Firebase Cloud Messaging HTTP v1: {@code POST {baseUrl}/v1/projects/{projectId}/messages:send} with an OAuth2 bearer
 * token. A token FCM no longer knows comes back as 404 {@code UNREGISTERED}, or as 400 {@code INVALID_ARGUMENT} about
 * the message's token; both drop the token.
 */
final class FcmProvider implements PushProvider {

    private final HttpClient http;
    private final URI endpoint;
    private final Supplier<String> accessTokens;
    private final Duration timeout;
    private final Clock clock;
    private final JsonMapper json = JsonMapper.builder().build();

    FcmProvider(
            HttpClient http,
            URI baseUrl,
            String projectId,
            Supplier<String> accessTokens,
            Duration timeout,
            Clock clock) {
        this.http = http;
        this.endpoint = URI.create(stripSlash(baseUrl.toString()) + "/v1/projects/" + projectId + "/messages:send");
        this.accessTokens = accessTokens;
        this.timeout = timeout;
        this.clock = clock;
    }

    @Override
    public Delivery send(Push push) {
        HttpRequest request = HttpRequest.newBuilder(endpoint)
                .timeout(timeout)
                .header("Authorization", "Bearer " + accessTokens.get())
                .header("Content-Type", "application/json; charset=UTF-8")
                .POST(HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(message(push))))
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            return Delivery.retry(null, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Delivery.retry(null, "interrupted");
        }
        int status = response.statusCode();
        String body = response.body() == null ? "" : response.body();
        if (HttpAnswers.isSuccess(status)) {
            return Delivery.delivered();
        }
        if (HttpAnswers.isRetryable(status) || status == 401) {
            // 401: the access token expired between fetch and use; Google's library refreshes it on the next call
            return HttpAnswers.retry(response, clock.instant());
        }
        if (status == 404 || (status == 400 && body.contains("INVALID_ARGUMENT") && mentionsToken(body))) {
            return Delivery.unregistered(status + " " + HttpAnswers.brief(body));
        }
        return Delivery.rejected(status + " " + HttpAnswers.brief(body));
    }

    static Map<String, Object> message(Push push) {
        IssueResult result = push.result();
        Map<String, String> data = new LinkedHashMap<>();
        data.put("eventId", result.eventId());
        data.put("couponId", Long.toString(result.couponId()));
        data.put("outcome", result.outcome().name());
        if (result.walletCouponId() != null) {
            data.put("walletCouponId", Long.toString(result.walletCouponId()));
        }
        if (result.failureReason() != null) {
            data.put("failureReason", result.failureReason());
        }
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("token", push.device().token());
        message.put("notification", Map.of("title", push.title(), "body", push.body()));
        message.put("data", data);
        return Map.of("message", message);
    }

    private static boolean mentionsToken(String body) {
        String lower = body.toLowerCase(java.util.Locale.ROOT);
        return lower.contains("message.token") || lower.contains("registration token");
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
