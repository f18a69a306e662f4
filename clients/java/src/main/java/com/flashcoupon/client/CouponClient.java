package com.flashcoupon.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import okhttp3.Dispatcher;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.RequestBody;

/**
 * The member's client of flash-coupon (docs/clients.md): claims coupons and follows them to their outcome.
 *
 * <pre>{@code
 * CouponClient client = CouponClient.builder()
 *         .baseUrl("https://coupons.example.com")
 *         .token(() -> session.accessToken())
 *         .build();
 * client.claim(42, update -> ui.show(update)).thenAccept(result -> ui.done(result));
 * }</pre>
 *
 * One client per member (it holds the member's token); it is thread-safe and cheap to keep. Futures complete on
 * OkHttp's or the client's own threads.
 */
public final class CouponClient implements AutoCloseable {

    private static final MediaType JSON = MediaType.get("application/json");

    private final Http http;
    private final ExecutorService solver;
    private final boolean ownsThreads;

    private CouponClient(Http http, ExecutorService solver, boolean ownsThreads) {
        this.http = http;
        this.solver = solver;
        this.ownsThreads = ownsThreads;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Claims one coupon: asks for a place, handling every answer of the contract, then follows the live status until
     * ISSUED or FAILED. {@code listener} hears each position, estimate and draw state on the way.
     */
    public CompletableFuture<ClaimResult> claim(long couponId, ClaimListener listener) {
        CompletableFuture<Map<Long, ClaimResult>> all = claimAll(List.of(couponId), listener);
        return cancelling(all.thenApply(results -> results.get(couponId)), all);
    }

    /**
     * Claims several coupons at once: the admissions side by side, then one live stream for every claim that holds a
     * place ({@code GET /api/v1/me/events?coupons=...}). The map holds each coupon's result, in the order given.
     */
    public CompletableFuture<Map<Long, ClaimResult>> claimAll(List<Long> couponIds, ClaimListener listener) {
        Objects.requireNonNull(listener, "listener");
        List<CompletableFuture<Status>> admissions = new ArrayList<>();
        for (long couponId : couponIds) {
            admissions.add(admit(couponId, listener));
        }
        List<CompletableFuture<?>> parts = new CopyOnWriteArrayList<>(admissions);
        CompletableFuture<Map<Long, ClaimResult>> results = CompletableFuture.allOf(
                        admissions.toArray(CompletableFuture[]::new))
                .thenCompose(all -> {
                    List<Status> statuses =
                            admissions.stream().map(CompletableFuture::join).toList();
                    return follow(statuses, listener, null, parts);
                });
        return cancellingParts(results, parts);
    }

    /**
     * Picks up a claim this app made before it was killed, from the {@link ClaimStore}: its result when it was decided,
     * else the claim followed again (asked again when it was never answered: asking is idempotent). Empty when the
     * store holds no claim of this coupon.
     */
    public CompletableFuture<Optional<ClaimResult>> resume(long couponId, ClaimListener listener) {
        Optional<StoredClaim> stored = http.store.get(couponId);
        if (stored.isEmpty()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        StoredClaim claim = stored.get();
        if (claim.isFinal()) {
            return CompletableFuture.completedFuture(Optional.of(claim.result()));
        }
        if ("CLAIMING".equals(claim.state())) {
            return claim(couponId, listener).thenApply(Optional::of);
        }
        Status waiting = new Status(couponId, "WAITING", null, null, null, null, null);
        List<CompletableFuture<?>> parts = new CopyOnWriteArrayList<>();
        CompletableFuture<Map<Long, ClaimResult>> results =
                cancellingParts(follow(List.of(waiting), listener, claim.lastEventId(), parts), parts);
        return cancelling(results.thenApply(done -> Optional.of(done.get(couponId))), results);
    }

    /** Registers this device's push token for the member ({@code PUT /api/v1/me/devices/{token}}), idempotent. */
    public CompletableFuture<Void> registerDevice(String deviceToken, Platform platform) {
        HttpUrl url = http.url("/api/v1/me/devices/")
                .newBuilder()
                .addPathSegment(deviceToken)
                .build();
        String body = "{\"platform\":\"" + platform.name() + "\"}";
        CompletableFuture<Void> done = new CompletableFuture<>();
        registerDevice(url, body, done, 0, false);
        return done;
    }

    private void registerDevice(
            HttpUrl url, String body, CompletableFuture<Void> done, int attempt, boolean refreshed) {
        http.send(http.request(url).put(RequestBody.create(body, JSON)).build()).whenComplete((answer, error) -> {
            if (error != null || answer.code == 429 || answer.code >= 500) {
                if (attempt >= http.maxAttempts) {
                    done.completeExceptionally(new CouponClientException("GAVE_UP", error));
                    return;
                }
                long after = error != null ? 0 : answer.retryAfterMillis();
                http.later(
                        http.backoffMillis(attempt, after),
                        () -> registerDevice(url, body, done, attempt + 1, refreshed));
            } else if (answer.code == 401 && !refreshed) {
                http.refreshToken();
                registerDevice(url, body, done, attempt, true);
            } else if (answer.code / 100 == 2) {
                done.complete(null);
            } else {
                done.completeExceptionally(new CouponClientException(answer.problemCode(), null));
            }
        });
    }

    private CompletableFuture<Status> admit(long couponId, ClaimListener listener) {
        return new Admission(http, couponId, listener, solver).start().thenApply(status -> {
            if (status.isFinal()) {
                ClaimResult result = status.result();
                http.store.put(new StoredClaim(
                        couponId,
                        result.outcome().name(),
                        result.walletCouponId(),
                        result.reason(),
                        null,
                        System.currentTimeMillis()));
            } else {
                http.store.put(new StoredClaim(couponId, "WAITING", null, null, null, System.currentTimeMillis()));
                listener.onUpdate(status.update());
            }
            return status;
        });
    }

    /** The final ones as they are; the waiting ones followed on one stream. */
    private CompletableFuture<Map<Long, ClaimResult>> follow(
            List<Status> statuses, ClaimListener listener, String lastEventId, List<CompletableFuture<?>> parts) {
        Map<Long, CompletableFuture<ClaimResult>> results = new LinkedHashMap<>();
        List<Long> waiting = new ArrayList<>();
        for (Status status : statuses) {
            if (status.isFinal()) {
                results.put(status.couponId(), CompletableFuture.completedFuture(status.result()));
            } else {
                results.put(status.couponId(), null);
                waiting.add(status.couponId());
            }
        }
        if (!waiting.isEmpty()) {
            Watch watch = new Watch(http, listener, lastEventId, couponId -> admit(couponId, listener));
            Map<Long, CompletableFuture<ClaimResult>> followed = watch.follow(waiting);
            parts.addAll(followed.values());
            followed.forEach(results::put);
        }
        return CompletableFuture.allOf(results.values().toArray(CompletableFuture[]::new))
                .thenApply(all -> {
                    Map<Long, ClaimResult> done = new LinkedHashMap<>();
                    results.forEach((id, result) -> done.put(id, result.join()));
                    return done;
                });
    }

    /**
     * {@code result}, which cancels {@code source} when the app cancels it: a claim the app gave up on stops asking and
     * closes its stream (a future made by {@code thenApply} would not tell the one it came from).
     */
    private static <T> CompletableFuture<T> cancelling(CompletableFuture<T> result, CompletableFuture<?> source) {
        result.whenComplete((done, error) -> {
            if (result.isCancelled()) {
                source.cancel(false);
            }
        });
        return result;
    }

    /**
     * {@code result}, which cancels every part of the claim (its admissions, each coupon's followed outcome, on whose
     * end the stream closes) when the app cancels it, including parts added after the cancel.
     */
    private static <T> CompletableFuture<T> cancellingParts(
            CompletableFuture<T> result, List<CompletableFuture<?>> parts) {
        result.whenComplete((done, error) -> {
            if (result.isCancelled()) {
                parts.forEach(part -> part.cancel(false));
            }
        });
        return result;
    }

    /** Stops the client's own threads (not those of an OkHttpClient the app gave). */
    @Override
    public void close() {
        solver.shutdownNow();
        if (ownsThreads) {
            http.timer.shutdownNow();
        }
    }

    /** Builds a {@link CouponClient}; {@code baseUrl} and {@code token} are required. */
    public static final class Builder {

        private String baseUrl;
        private Supplier<String> token;
        private OkHttpClient httpClient;
        private ClaimStore store = new MemoryClaimStore();
        private Backoff backoff = Backoff.DEFAULT;
        private int maxAttempts = 40;
        private Duration streamReadTimeout = Duration.ofSeconds(45);
        private ScheduledExecutorService timer;

        private Builder() {}

        /** The api's base URL, such as {@code https://coupons.example.com}. */
        public Builder baseUrl(String baseUrl) {
            this.baseUrl = baseUrl;
            return this;
        }

        /** The member's token; asked for again after a 401 (once per refusal). */
        public Builder token(Supplier<String> token) {
            this.token = token;
            return this;
        }

        /** The app's own OkHttpClient (its pool, interceptors, certificate pinning); a new one by default. */
        public Builder httpClient(OkHttpClient httpClient) {
            this.httpClient = httpClient;
            return this;
        }

        /** Where claims are kept for {@link #resume}; in memory by default. */
        public Builder store(ClaimStore store) {
            this.store = store;
            return this;
        }

        /** The jitter window of the first retry and its cap (1 s and 30 s by default). */
        public Builder backoff(Duration base, Duration cap) {
            this.backoff = new Backoff(base, cap);
            return this;
        }

        /** Retries of one step before the claim fails {@code GAVE_UP} (40 by default: several minutes of backoff). */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        /**
         * How long a live stream may be silent before it counts as cut (45 s by default: three of the api's 15 s
         * heartbeats).
         */
        public Builder streamReadTimeout(Duration timeout) {
            this.streamReadTimeout = timeout;
            return this;
        }

        /** A timer shared by many clients (a load test's); each client has its own by default. */
        public Builder timer(ScheduledExecutorService timer) {
            this.timer = timer;
            return this;
        }

        public CouponClient build() {
            Objects.requireNonNull(baseUrl, "baseUrl");
            Objects.requireNonNull(token, "token");
            HttpUrl base = HttpUrl.parse(baseUrl.endsWith("/") ? baseUrl : baseUrl + "/");
            if (base == null) {
                throw new IllegalArgumentException("not an http(s) URL: " + baseUrl);
            }
            OkHttpClient client = httpClient != null ? httpClient : defaultClient();
            OkHttpClient streams = client.newBuilder()
                    .readTimeout(streamReadTimeout)
                    .retryOnConnectionFailure(false)
                    .build();
            boolean ownsTimer = timer == null;
            ScheduledExecutorService clock =
                    ownsTimer ? Executors.newSingleThreadScheduledExecutor(daemon("flash-coupon-timer")) : timer;
            ExecutorService solver = Executors.newSingleThreadExecutor(daemon("flash-coupon-proof-of-work"));
            return new CouponClient(
                    new Http(client, streams, base, token, backoff, clock, store, maxAttempts), solver, ownsTimer);
        }

        private static OkHttpClient defaultClient() {
            Dispatcher dispatcher = new Dispatcher();
            dispatcher.setMaxRequestsPerHost(16);
            return new OkHttpClient.Builder()
                    .dispatcher(dispatcher)
                    .connectTimeout(Duration.ofSeconds(10))
                    .readTimeout(Duration.ofSeconds(30))
                    .build();
        }

        private static java.util.concurrent.ThreadFactory daemon(String name) {
            return runnable -> {
                Thread thread = new Thread(runnable, name);
                thread.setDaemon(true);
                return thread;
            };
        }
    }
}
