package com.flashcoupon.worker.notify;

import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.net.URI;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The push notifier, under {@code coupon.notify} (environment: {@code COUPON_NOTIFY_PROVIDER},
 * {@code COUPON_NOTIFY_FCM_PROJECT_ID}, ...). With {@code provider=none} (the default, so a local stack runs without
 * credentials) the notifier does not start at all.
 *
 * @param provider where pushes go: {@code none}, {@code fcm} or {@code webhook}
 * @param concurrency consumer threads on the result topic
 * @param claimTimeout how long a claimed, unfinished push belongs to the notifier that claimed it; after that a replay
 *     takes it over (that notifier is taken to have died). One push, retries included, ends within
 *     {@link #pushBudget()}, one request time-out shorter; at least twice {@code requestTimeout}
 * @param requestTimeout the longest one provider call may take, whole: the access token it needs, the request, the
 *     answer's headers and body (PushSender ends an attempt that takes longer)
 * @param maxDevices pushes per result at most: the member's most recently registered devices
 *     ({@code COUPON_DEVICES_MAX_PER_MEMBER}, the same cap the api keeps on registrations)
 * @param redelivery how a result whose pushes could not all be finished is tried again, off its partition
 */
@Validated
@ConfigurationProperties("coupon.notify")
public record NotifyProperties(
        @DefaultValue("none") @NotNull Provider provider,
        @DefaultValue("3") @Min(1) @Max(64) int concurrency,
        @DefaultValue("60s") @NotNull Duration claimTimeout,
        @DefaultValue("10s") @NotNull Duration requestTimeout,
        @DefaultValue("20") @Min(1) @Max(1000) int maxDevices,
        @DefaultValue @Valid @NotNull Redelivery redelivery,
        @DefaultValue @Valid @NotNull Retry retry,
        @DefaultValue @Valid @NotNull Fcm fcm,
        @DefaultValue @Valid @NotNull Webhook webhook) {

    /** The longest one push may take, retries and pauses included: below the claim, so it is never taken over. */
    public Duration pushBudget() {
        return claimTimeout.minus(requestTimeout);
    }

    @AssertTrue(message = "must be at least twice coupon.notify.request-timeout")
    boolean isClaimTimeout() {
        return claimTimeout == null
                || requestTimeout == null
                || claimTimeout.compareTo(requestTimeout.multipliedBy(2)) >= 0;
    }

    public enum Provider {
        NONE,
        FCM,
        WEBHOOK
    }

    /**
     * Redeliveries of a result record whose pushes did not all finish (the provider kept answering 429, 5xx or nothing;
     * another notifier was sending one; the record's push budget ran out; anything unexpected): the record goes to the
     * retry topic {@code coupon.issue.result.notify-retry} and its partition carries on with the next results; it comes
     * back after {@code delay}, its finished pushes skipped. After {@code attempts} redeliveries it goes to
     * {@code coupon.issue.result.notify-dlt}, counted in {@code coupon_notify_dead_lettered_total}.
     *
     * @param delay pause before each redelivery
     * @param attempts redeliveries before the record is dead-lettered
     */
    public record Redelivery(
            @DefaultValue("30s") @NotNull Duration delay,
            @DefaultValue("20") @Min(1) @Max(1000) int attempts) {}

    /**
     * Retries of one push on 429, 5xx and I/O errors.
     *
     * @param maxAttempts calls per push before the record is handed back to Kafka's back-off
     * @param initialBackoff first pause, doubled per attempt up to {@code maxBackoff}
     * @param maxRetryAfter the longest {@code Retry-After} honoured
     */
    public record Retry(
            @DefaultValue("5") @Min(1) @Max(20) int maxAttempts,
            @DefaultValue("200ms") @NotNull Duration initialBackoff,
            @DefaultValue("10s") @NotNull Duration maxBackoff,
            @DefaultValue("60s") @NotNull Duration maxRetryAfter) {}

    /**
     * Firebase Cloud Messaging HTTP v1.
     *
     * @param baseUrl the API's root (tests point it at a local server)
     * @param projectId the Firebase project
     * @param credentialsFile a service-account JSON file; empty: Google's application default credentials
     */
    public record Fcm(
            @DefaultValue("https://fcm.googleapis.com") @NotNull
            URI baseUrl,

            String projectId,
            String credentialsFile) {}

    /**
     * A generic JSON webhook: one POST per push.
     *
     * @param url where to POST
     * @param authorization value of the {@code Authorization} header, if any
     */
    public record Webhook(URI url, String authorization) {}
}
