package com.flashcoupon.worker.notify;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** Reads providers' HTTP answers: success, retryable (429, 5xx) with {@code Retry-After}, or a client error. */
final class HttpAnswers {

    private HttpAnswers() {}

    static boolean isSuccess(int status) {
        return status >= 200 && status < 300;
    }

    static boolean isRetryable(int status) {
        return status == 429 || status >= 500;
    }

    static Delivery retry(HttpResponse<String> response, Instant now) {
        return Delivery.retry(
                retryAfter(response.headers().firstValue("Retry-After"), now).orElse(null),
                response.statusCode() + " " + brief(response.body()));
    }

    /** {@code Retry-After} as delay-seconds or an HTTP-date (RFC 9110 10.2.3); empty when absent or unreadable. */
    static Optional<Duration> retryAfter(Optional<String> header, Instant now) {
        if (header.isEmpty() || header.get().isBlank()) {
            return Optional.empty();
        }
        String value = header.get().trim();
        try {
            return Optional.of(Duration.ofSeconds(Math.max(0, Long.parseLong(value))));
        } catch (NumberFormatException notSeconds) {
            try {
                Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME)
                        .toInstant();
                return Optional.of(at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO);
            } catch (DateTimeParseException unreadable) {
                return Optional.empty();
            }
        }
    }

    static String brief(String body) {
        if (body == null) {
            return "";
        }
        String flat = body.replaceAll("\\s+", " ");
        return flat.length() > 300 ? flat.substring(0, 300) + "..." : flat;
    }
}
