package com.flashcoupon.loadgen.crowd;

import com.flashcoupon.client.ClaimResult;
import com.flashcoupon.client.ClaimUpdate;
import com.flashcoupon.client.CouponClient;
import com.flashcoupon.loadgen.jwt.JwtMinter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;

/**
 * {@code crowd --via-client N} ({@code bin/demo --via-client N}): N more members of the crowd claim through the Java
 * client library, as an app would: admission with every answer of the contract handled, then the live stream until
 * ISSUED or FAILED. They ask while the rest of the crowd does; what they are told is checked against MySQL with the
 * crowd's invariants.
 */
final class ViaClient implements AutoCloseable {

    private final String[] members;
    private final OkHttpClient http;
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
    private final List<CouponClient> clients = new ArrayList<>();
    private final List<CompletableFuture<ClaimResult>> claims = new ArrayList<>();
    private final Set<String> placed = ConcurrentHashMap.newKeySet();
    private final Map<String, Long> outcomeMillis = new ConcurrentHashMap<>();
    private final AtomicLong updates = new AtomicLong();
    private long started;

    ViaClient(String runId, int count, JwtMinter minter, String api) {
        members = new String[count];
        Dispatcher dispatcher = new Dispatcher();
        dispatcher.setMaxRequests(Math.max(64, count * 2));
        dispatcher.setMaxRequestsPerHost(Math.max(64, count * 2));
        http = new OkHttpClient.Builder()
                .dispatcher(dispatcher)
                .connectionPool(new ConnectionPool(Math.max(5, count), 1, TimeUnit.MINUTES))
                .build();
        for (int i = 0; i < count; i++) {
            String member = "demo-" + runId + "-client-" + (i + 1);
            members[i] = member;
            String token = minter.member(member);
            clients.add(CouponClient.builder()
                    .baseUrl(api)
                    .token(() -> token)
                    .httpClient(http)
                    .timer(timer)
                    .build());
        }
    }

    /** Starts every member's claim; returns at once. */
    void start(long couponId) {
        started = System.nanoTime();
        for (int i = 0; i < clients.size(); i++) {
            String member = members[i];
            claims.add(clients.get(i)
                    .claim(couponId, update -> {
                        updates.incrementAndGet();
                        if (update.phase() == ClaimUpdate.Phase.WAITING) {
                            placed.add(member);
                        }
                    })
                    .whenComplete((result, error) -> {
                        outcomeMillis.put(member, (System.nanoTime() - started) / 1_000_000);
                        if (result != null && result.isIssued()) {
                            placed.add(member); // issued at admission: told its place and its coupon at once
                        }
                    }));
        }
    }

    /** Waits until every claim ended, at most {@code wait}. */
    void await(Duration wait) throws InterruptedException {
        try {
            CompletableFuture.allOf(claims.toArray(CompletableFuture[]::new))
                    .get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
            // reported below: claims without an outcome
        }
    }

    /** The members the api told a place (202 or 200 with a status). */
    Set<String> placed() {
        return placed;
    }

    /** The members whose claim ended without any answer the client could act on. */
    Set<String> unanswered() {
        Set<String> none = new HashSet<>();
        for (int i = 0; i < claims.size(); i++) {
            ClaimResult result = claims.get(i).getNow(null);
            if (result == null || "GAVE_UP".equals(result.reason())) {
                none.add(members[i]);
            }
        }
        return none;
    }

    /** Of these members MySQL recorded FAILED, how many the library told FAILED (on its stream, or by a read). */
    long toldFailed(Set<String> failedInDb) {
        long told = 0;
        for (int i = 0; i < claims.size(); i++) {
            ClaimResult result = claims.get(i).getNow(null);
            if (failedInDb.contains(members[i])
                    && placed.contains(members[i])
                    && result != null
                    && !result.isIssued()) {
                told++;
            }
        }
        return told;
    }

    /**
     * What the library's members were told against what MySQL holds: every ISSUED member has a wallet row, no FAILED
     * one has, and every claim ended.
     */
    Check check(Set<String> walletMembers) {
        int issued = 0;
        int failed = 0;
        int open = 0;
        List<String> wrong = new ArrayList<>();
        Map<String, Integer> reasons = new java.util.TreeMap<>();
        for (int i = 0; i < claims.size(); i++) {
            ClaimResult result = claims.get(i).getNow(null);
            if (result == null) {
                open++;
                continue;
            }
            if (result.isIssued()) {
                issued++;
                if (!walletMembers.contains(members[i])) {
                    wrong.add(members[i] + " told ISSUED without a wallet row");
                }
            } else {
                failed++;
                reasons.merge(result.reason(), 1, Integer::sum);
                if (walletMembers.contains(members[i])) {
                    wrong.add(members[i] + " told FAILED " + result.reason() + " with a wallet row");
                }
            }
        }
        List<Long> times = new ArrayList<>(outcomeMillis.values());
        times.sort(null);
        String median =
                times.isEmpty() ? "-" : String.format(Locale.ROOT, "%.1f s", times.get(times.size() / 2) / 1000.0);
        String last = times.isEmpty() ? "-" : String.format(Locale.ROOT, "%.1f s", times.getLast() / 1000.0);
        String detail = String.format(
                Locale.ROOT,
                "%,d members through the Java client (live streams): %,d ISSUED, %,d FAILED %s, %,d without an"
                        + " outcome; %,d updates heard; outcome after %s (median), %s (last)%s",
                claims.size(),
                issued,
                failed,
                reasons,
                open,
                updates.get(),
                median,
                last,
                wrong.isEmpty() ? "" : "; " + wrong.subList(0, Math.min(5, wrong.size())));
        return new Check("the Java client's members told what MySQL holds", wrong.isEmpty() && open == 0, detail);
    }

    @Override
    public void close() {
        clients.forEach(CouponClient::close);
        timer.shutdownNow();
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
    }
}
