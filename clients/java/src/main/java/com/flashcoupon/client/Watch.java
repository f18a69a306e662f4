package com.flashcoupon.client;

import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.sse.EventSource;
import okhttp3.sse.EventSourceListener;
import okhttp3.sse.EventSources;

/**
 * Follows one or several waiting claims to their outcome on one live stream ({@code .../issue-requests/me/events} for
 * one coupon, {@code /api/v1/me/events?coupons=...} for several), opened again with {@code Last-Event-ID} when it ends
 * early ({@code reconnect}, a cut connection); after {@value #STREAM_FAILURES} failures in a row, or a coupon whose
 * stream was {@code replaced} by a newer one, by reading the status at the interval the server suggests
 * ({@code X-Coupon-Poll-After}). A request the api no longer knows (404: its Redis was lost) is asked for again.
 */
final class Watch {

    static final int STREAM_FAILURES = 3;

    /** The poll interval when the server suggests none. */
    static final long DEFAULT_POLL_MILLIS = 5_000;

    private final Http http;
    private final ClaimListener listener;
    private final Function<Long, CompletableFuture<Status>> readmit;
    private final Map<Long, CompletableFuture<ClaimResult>> streamed = new LinkedHashMap<>();
    private final Map<Long, CompletableFuture<ClaimResult>> all = new LinkedHashMap<>();
    private String lastEventId;
    private EventSource source;
    private int failures;
    private int attempt;
    private boolean refreshed;
    private boolean reconnect;

    Watch(Http http, ClaimListener listener, String lastEventId, Function<Long, CompletableFuture<Status>> readmit) {
        this.http = http;
        this.listener = listener;
        this.lastEventId = lastEventId;
        this.readmit = readmit;
    }

    /** Follows these coupons (each WAITING) until each has its outcome. */
    synchronized Map<Long, CompletableFuture<ClaimResult>> follow(List<Long> couponIds) {
        for (long couponId : couponIds) {
            CompletableFuture<ClaimResult> result = new CompletableFuture<>();
            streamed.put(couponId, result);
            all.put(couponId, result);
            result.whenComplete((done, error) -> closeWhenDone());
        }
        open();
        return Map.copyOf(all);
    }

    private synchronized void closeWhenDone() {
        if (all.values().stream().allMatch(CompletableFuture::isDone) && source != null) {
            source.cancel();
            source = null;
        }
    }

    private synchronized void open() {
        streamed.values().removeIf(CompletableFuture::isDone);
        if (streamed.isEmpty()) {
            return;
        }
        reconnect = false;
        String path;
        if (streamed.size() == 1 && all.size() == 1) {
            path = "/api/v1/coupons/" + streamed.keySet().iterator().next() + "/issue-requests/me/events";
        } else {
            StringJoiner ids = new StringJoiner(",");
            streamed.keySet().forEach(id -> ids.add(Long.toString(id)));
            path = "/api/v1/me/events?coupons=" + ids;
        }
        Request.Builder request = http.request(http.url(path)).header("Accept", "text/event-stream");
        if (lastEventId != null) {
            request.header("Last-Event-ID", lastEventId);
        }
        source = EventSources.createFactory(http.streams).newEventSource(request.build(), new Listener());
    }

    private final class Listener extends EventSourceListener {

        @Override
        public void onEvent(EventSource eventSource, String id, String type, String data) {
            synchronized (Watch.this) {
                if (eventSource != source) {
                    return;
                }
                if (id != null) {
                    lastEventId = id;
                }
                JsonObject json = Answer.object(data);
                long couponId = orZero(Json.number(json, "couponId"));
                if ("status".equals(type)) {
                    failures = 0;
                    attempt = 0;
                    refreshed = false;
                    Status status = Status.of(json, couponId);
                    told(status, lastEventId);
                } else if ("replaced".equals(type)) {
                    // a newer stream follows this coupon (another screen, another device): read its status instead
                    CompletableFuture<ClaimResult> result = streamed.remove(couponId);
                    if (result != null && !result.isDone()) {
                        poll(couponId, 0);
                    }
                } else if ("reconnect".equals(type)) {
                    reconnect = true;
                }
            }
        }

        @Override
        public void onClosed(EventSource eventSource) {
            synchronized (Watch.this) {
                if (eventSource != source) {
                    return;
                }
                source = null;
                streamed.values().removeIf(CompletableFuture::isDone);
                if (streamed.isEmpty()) {
                    return;
                }
                if (reconnect) {
                    // the stream reached its lifetime: open it again, a random moment later
                    http.later(Http.random(1_000), Watch.this::open);
                } else {
                    failed(0);
                }
            }
        }

        @Override
        public void onFailure(EventSource eventSource, Throwable t, Response response) {
            synchronized (Watch.this) {
                if (eventSource != source) {
                    return;
                }
                source = null;
                streamed.values().removeIf(CompletableFuture::isDone);
                if (streamed.isEmpty()) {
                    return;
                }
                int code = response == null ? 0 : response.code();
                if (code == 401 && !refreshed) {
                    refreshed = true;
                    http.refreshToken();
                    open();
                } else if (code == 404 || code == 401 || code == 403 || code == 400) {
                    // the api does not know one of the requests (or will not stream them): read each one's status
                    pollAll();
                } else {
                    long retryAfter = 0;
                    if (response != null) {
                        retryAfter = new Answer(code, response.headers(), "").retryAfterMillis();
                    }
                    failed(retryAfter);
                }
            }
        }
    }

    /** The stream failed: open it again after a backoff, or read the statuses once it failed too often. */
    private void failed(long retryAfterMillis) {
        failures++;
        if (failures >= STREAM_FAILURES) {
            pollAll();
        } else {
            http.later(http.backoffMillis(attempt++, retryAfterMillis), this::open);
        }
    }

    private void pollAll() {
        List<Long> ids = new ArrayList<>(streamed.keySet());
        streamed.clear();
        ids.forEach(id -> poll(id, 0));
    }

    /** A status received (streamed or read): the app is told, the store updated, the claim ended when final. */
    private synchronized void told(Status status, String eventId) {
        CompletableFuture<ClaimResult> result = all.get(status.couponId());
        if (result == null || result.isDone()) {
            return;
        }
        if (status.isFinal()) {
            ClaimResult outcome = status.result();
            http.store.put(new StoredClaim(
                    status.couponId(),
                    outcome.outcome().name(),
                    outcome.walletCouponId(),
                    outcome.reason(),
                    eventId,
                    System.currentTimeMillis()));
            result.complete(outcome);
        } else {
            http.store.put(
                    new StoredClaim(status.couponId(), "WAITING", null, null, eventId, System.currentTimeMillis()));
            listener.onUpdate(status.update());
        }
    }

    /** Reads one coupon's status, then again at the interval the server suggests, until it is final. */
    private void poll(long couponId, int attempts) {
        CompletableFuture<ClaimResult> result;
        synchronized (this) {
            result = all.get(couponId);
        }
        if (result == null || result.isDone()) {
            return;
        }
        String path = "/api/v1/coupons/" + couponId + "/issue-requests/me";
        http.send(http.request(http.url(path)).build()).whenComplete((answer, error) -> {
            if (error != null || answer.code == 429 || answer.code >= 500) {
                long after = error != null ? 0 : answer.retryAfterMillis();
                http.later(http.backoffMillis(Math.min(attempts, 10), after), () -> poll(couponId, attempts + 1));
            } else if (answer.code == 200) {
                Status status = Status.of(answer.json(), couponId);
                told(status, null);
                if (!status.isFinal()) {
                    http.later(answer.pollAfterMillis(DEFAULT_POLL_MILLIS), () -> poll(couponId, 0));
                }
            } else if (answer.code == 401 && attempts == 0) {
                http.refreshToken();
                poll(couponId, 1);
            } else if (answer.code == 404) {
                // Redis lost the request and MySQL has no outcome for it: the contract says ask again
                readmit.apply(couponId).whenComplete((status, failure) -> {
                    if (failure != null) {
                        result.completeExceptionally(failure);
                    } else {
                        told(status, null);
                        if (!status.isFinal()) {
                            http.later(DEFAULT_POLL_MILLIS, () -> poll(couponId, 0));
                        }
                    }
                });
            } else {
                result.complete(ClaimResult.failed(couponId, answer.problemCode()));
            }
        });
    }

    private static long orZero(Long value) {
        return value == null ? 0 : value;
    }
}
