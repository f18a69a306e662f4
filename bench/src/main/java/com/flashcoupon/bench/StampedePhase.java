package com.flashcoupon.bench;

import com.flashcoupon.client.ClaimResult;
import com.flashcoupon.client.ClaimUpdate;
import com.flashcoupon.client.CouponClient;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * Issue 36's stampede: {@code --stampede-members} clients (2,000) ask for a coupon within the same second, more than
 * the api's overload guard lets through at once, so most are answered 503 with {@code Retry-After}. Run twice on
 * coupons of their own with stock for everyone: first naive clients that ask again at once after any refusal, then the
 * Java client library ({@code flash-coupon-client}: never sooner than {@code Retry-After}, then full-jitter backoff).
 * Every admission request either sends is counted as it leaves (an OkHttp interceptor), in 100 ms buckets: what the
 * api sees (the library's stream and status requests after its members are placed are not admissions, not counted).
 * Reported: requests and retries per second, the 503s and the time until every member holds a place. Both kinds of
 * member stop once placed (the library's claim is cancelled, which closes its stream), so the two runs load the api
 * with admissions alone.
 */
final class StampedePhase implements Phase {

    /** The longest a run may take before it is cut off and reported as it stands. */
    private static final Duration LIMIT = Duration.ofMinutes(4);

    private static final int BUCKETS = (int) (LIMIT.toMillis() / 100) + 1;

    /**
     * One run.
     *
     * @param client "naive" or "library"
     * @param requestsPerSecond requests sent in each second from the start (every request after a member's first is a
     *     retry)
     */
    record Run(
            String client,
            int members,
            long requests,
            long refused503,
            long refused429,
            long networkErrors,
            long placed,
            double placedSeconds,
            double issuedSeconds,
            long[] requestsPerSecond,
            long overloadRefusedByServer) {

        long retries() {
            return requests - members;
        }

        long peakPerSecond() {
            long peak = 0;
            for (long count : requestsPerSecond) {
                peak = Math.max(peak, count);
            }
            return peak;
        }

        /** Retries per second until every member was placed (or the run was cut off). */
        double retriesPerSecond() {
            return placedSeconds > 0 ? retries() / placedSeconds : 0;
        }
    }

    @Override
    public void run(BenchRun b) throws Exception {
        int members = b.s.stampedeMembers();
        b.ensureTokens(members);
        b.info("stampede: %,d clients in the same second, naive then the Java client library", members);
        double from = b.now();
        b.r.stampede.add(naive(b, members));
        b.info("stampede naive: " + describe(b.r.stampede.getLast()));
        b.r.stampede.add(library(b, members));
        b.info("stampede library: " + describe(b.r.stampede.getLast()));
        b.span("stampede", from, b.now());
    }

    private static String describe(Run run) {
        return String.format(
                Locale.ROOT,
                "%,d requests (%,d 503), peak %,d/s, all placed after %.1f s",
                run.requests(),
                run.refused503(),
                run.peakPerSecond(),
                run.placedSeconds());
    }

    /** Counts every request as it leaves, in 100 ms buckets from {@code start}. */
    private static final class Counter {
        final AtomicLongArray buckets = new AtomicLongArray(BUCKETS);
        final AtomicLong total = new AtomicLong();
        final AtomicLong refused503 = new AtomicLong();
        final AtomicLong refused429 = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        volatile long start = System.nanoTime();

        OkHttpClient client() {
            Dispatcher dispatcher = new Dispatcher();
            dispatcher.setMaxRequests(20_000);
            dispatcher.setMaxRequestsPerHost(20_000);
            return new OkHttpClient.Builder()
                    .dispatcher(dispatcher)
                    .connectionPool(new ConnectionPool(5_000, 1, TimeUnit.MINUTES))
                    .readTimeout(Duration.ofSeconds(30))
                    .addInterceptor(chain -> {
                        if (!"POST".equals(chain.request().method())) {
                            return chain.proceed(chain.request()); // the library's streams and reads: not admissions
                        }
                        total.incrementAndGet();
                        int bucket = (int) ((System.nanoTime() - start) / 100_000_000L);
                        buckets.incrementAndGet(Math.max(0, Math.min(BUCKETS - 1, bucket)));
                        Response response;
                        try {
                            response = chain.proceed(chain.request());
                        } catch (IOException e) {
                            failed.incrementAndGet();
                            throw e;
                        }
                        if (response.code() == 503) {
                            refused503.incrementAndGet();
                        } else if (response.code() == 429) {
                            refused429.incrementAndGet();
                        }
                        return response;
                    })
                    .build();
        }

        long[] perSecond(double seconds) {
            int whole = (int) Math.min(LIMIT.toSeconds(), Math.ceil(seconds));
            long[] out = new long[Math.max(1, whole)];
            for (int i = 0; i < BUCKETS && i / 10 < out.length; i++) {
                out[i / 10] += buckets.get(i);
            }
            return out;
        }

        double since() {
            return (System.nanoTime() - start) / 1e9;
        }
    }

    /** Naive clients: ask, and on any refusal (or network error) ask again at once, until placed. */
    private static Run naive(BenchRun b, int members) throws Exception {
        long coupon = b.coupon("stampede naive", members, 5_000);
        long refusedBefore = overloadRefused(b);
        Counter counter = new Counter();
        OkHttpClient http = counter.client();
        String url = b.s.api() + BenchRun.issuePath(coupon);
        CountDownLatch placed = new CountDownLatch(members);
        AtomicLong lastPlaced = new AtomicLong();
        ScheduledExecutorService starter = Executors.newScheduledThreadPool(2);
        counter.start = System.nanoTime();
        for (int i = 0; i < members; i++) {
            String token = b.tokens[i];
            starter.schedule(
                    () -> naiveAsk(http, url, token, counter, placed, lastPlaced),
                    ThreadLocalRandom.current().nextLong(1_000),
                    TimeUnit.MILLISECONDS);
        }
        boolean all = placed.await(LIMIT.toSeconds(), TimeUnit.SECONDS);
        double placedSeconds = all ? (lastPlaced.get() - counter.start) / 1e9 : counter.since();
        starter.shutdownNow();
        Run run = new Run(
                "naive: asks again at once",
                members,
                counter.total.get(),
                counter.refused503.get(),
                counter.refused429.get(),
                counter.failed.get(),
                members - placed.getCount(),
                placedSeconds,
                -1,
                counter.perSecond(placedSeconds),
                overloadRefused(b) - refusedBefore);
        http.dispatcher().cancelAll();
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
        b.closeQuietly(coupon);
        return run;
    }

    private static void naiveAsk(
            OkHttpClient http,
            String url,
            String token,
            Counter counter,
            CountDownLatch placed,
            AtomicLong lastPlaced) {
        Request request = new Request.Builder()
                .url(url)
                .header("Authorization", "Bearer " + token)
                .post(RequestBody.create(new byte[0]))
                .build();
        http.newCall(request).enqueue(new Callback() {
            @Override
            public void onFailure(Call call, IOException e) {
                if (counter.since() < LIMIT.toSeconds()) {
                    naiveAsk(http, url, token, counter, placed, lastPlaced);
                }
            }

            @Override
            public void onResponse(Call call, Response response) {
                int code = response.code();
                response.close();
                if (code == 200 || code == 202 || code == 409) {
                    lastPlaced.accumulateAndGet(System.nanoTime(), Math::max);
                    placed.countDown();
                } else if (counter.since() < LIMIT.toSeconds()) {
                    naiveAsk(http, url, token, counter, placed, lastPlaced);
                }
            }
        });
    }

    /** The Java client library: one CouponClient per member, claims started within the same second. */
    private static Run library(BenchRun b, int members) throws Exception {
        long coupon = b.coupon("stampede library", members, 5_000);
        long refusedBefore = overloadRefused(b);
        Counter counter = new Counter();
        OkHttpClient http = counter.client();
        ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
        CountDownLatch placed = new CountDownLatch(members);
        AtomicLong lastPlaced = new AtomicLong();
        List<CompletableFuture<?>> claims = new ArrayList<>();
        List<CouponClient> clients = new ArrayList<>();
        counter.start = System.nanoTime();
        for (int i = 0; i < members; i++) {
            String token = b.tokens[i];
            CouponClient client = CouponClient.builder()
                    .baseUrl(b.s.api())
                    .token(() -> token)
                    .httpClient(http)
                    .timer(timer)
                    .build();
            clients.add(client);
            CompletableFuture<Object> claim = new CompletableFuture<>();
            claims.add(claim);
            boolean[] told = {false};
            // once placed, the member stops following its claim (the stream closes), as the naive member stops once
            // answered 202: both runs then put the same load on the api, admissions alone
            AtomicReference<CompletableFuture<ClaimResult>> following = new AtomicReference<>();
            Runnable placedNow = () -> {
                synchronized (told) {
                    if (told[0]) {
                        return;
                    }
                    told[0] = true;
                }
                lastPlaced.accumulateAndGet(System.nanoTime(), Math::max);
                placed.countDown();
                CompletableFuture<ClaimResult> started = following.get();
                if (started != null) {
                    started.cancel(true);
                }
            };
            timer.schedule(
                    () -> {
                        CompletableFuture<ClaimResult> started = client.claim(coupon, update -> {
                            if (update.phase() == ClaimUpdate.Phase.WAITING) {
                                placedNow.run();
                            }
                        });
                        following.set(started);
                        synchronized (told) {
                            if (told[0]) {
                                started.cancel(true); // placed before the future was held
                            }
                        }
                        started.whenComplete((result, error) -> {
                            if (error == null) {
                                placedNow.run(); // decided at admission (issued already): placed too
                            }
                            claim.complete(result);
                        });
                    },
                    ThreadLocalRandom.current().nextLong(1_000),
                    TimeUnit.MILLISECONDS);
        }
        boolean all = placed.await(LIMIT.toSeconds(), TimeUnit.SECONDS);
        double placedSeconds = all ? (lastPlaced.get() - counter.start) / 1e9 : counter.since();
        long refusedAtPlacement = overloadRefused(b) - refusedBefore;
        long requestsAtPlacement = counter.total.get();
        long[] perSecond = counter.perSecond(placedSeconds);
        long refused503 = counter.refused503.get();
        long refused429 = counter.refused429.get();
        long networkErrors = counter.failed.get();
        try {
            // every claim ends: cancelled once placed, or given up
            CompletableFuture.allOf(claims.toArray(CompletableFuture[]::new))
                    .get(Math.max(1, LIMIT.toSeconds() - (long) counter.since()), TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            b.note("stampede: not every library claim ended within %s", LIMIT);
        }
        clients.forEach(CouponClient::close);
        timer.shutdownNow();
        http.dispatcher().cancelAll();
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
        b.closeQuietly(coupon);
        return new Run(
                "library: Retry-After, then full jitter",
                members,
                requestsAtPlacement,
                refused503,
                refused429,
                networkErrors,
                members - placed.getCount(),
                placedSeconds,
                -1, // the members stopped following once placed, as the naive ones do
                perSecond,
                refusedAtPlacement);
    }

    /** What the api's overload guard counts as refused so far ({@code GET /admin/v1/overload}); -1 unknown. */
    private static long overloadRefused(BenchRun b) {
        try {
            var answer = b.control.run(
                    1,
                    i -> com.flashcoupon.loadgen.engine.HttpCall.get(
                            "/admin/v1/overload", b.minter.operator("b" + b.runId + "-operator")),
                    (index, code, body) -> code == 200 ? body : Integer.toString(code),
                    com.flashcoupon.loadgen.engine.ProgressListener.NONE);
            for (String outcome : answer.outcomes().keySet()) {
                java.util.regex.Matcher refused =
                        java.util.regex.Pattern.compile("\"refused\":(\\d+)").matcher(outcome);
                if (refused.find()) {
                    return Long.parseLong(refused.group(1));
                }
            }
        } catch (RuntimeException e) {
            b.note("stampede: cannot read /admin/v1/overload: %s", e.getMessage());
        }
        return -1;
    }

    /** The report's section. */
    static void report(List<Run> runs, Consumer<String> line) {
        if (runs.isEmpty()) {
            return;
        }
        line.accept("## Stampede: clients that meet an overload in the same second");
        line.accept("");
        line.accept(String.format(
                Locale.ROOT,
                "%,d members ask for a coupon (stock for all of them) within the same second, on a coupon of each run;"
                        + " the api's overload guard refuses what it cannot take at once with 503 and `Retry-After:"
                        + " 1`. Naive clients ask again at once; the Java client library waits at least"
                        + " `Retry-After`, then a full-jitter window (1 s, doubling, at most 30 s). Requests are"
                        + " counted as they leave the clients: what the api sees.",
                runs.getFirst().members()));
        line.accept("");
        line.accept("| client | admissions sent until all placed | retries | 503 answers | 429 answers | no answer |"
                + " 503s the guard counted | peak admissions/s | retries/s (mean) | all placed after |"
                + " all issued after |");
        line.accept("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        for (Run run : runs) {
            line.accept(String.format(
                    Locale.ROOT,
                    "| %s | %,d | %,d | %,d | %,d | %,d | %s | %,d | %,.0f | %.1f s%s | %s |",
                    run.client(),
                    run.requests(),
                    run.retries(),
                    run.refused503(),
                    run.refused429(),
                    run.networkErrors(),
                    run.overloadRefusedByServer() < 0
                            ? "?"
                            : String.format(Locale.ROOT, "%,d", run.overloadRefusedByServer()),
                    run.peakPerSecond(),
                    run.retriesPerSecond(),
                    run.placedSeconds(),
                    run.placed() < run.members() ? " (" + run.placed() + " placed)" : "",
                    run.issuedSeconds() < 0 ? "-" : String.format(Locale.ROOT, "%.1f s", run.issuedSeconds())));
        }
        line.accept("");
        line.accept("Admissions sent in each second from the start:");
        line.accept("");
        for (Run run : runs) {
            StringBuilder seconds = new StringBuilder();
            long[] counts = run.requestsPerSecond();
            for (int i = 0; i < Math.min(counts.length, 30); i++) {
                seconds.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%,d", counts[i]));
            }
            line.accept("- " + run.client() + ": " + seconds + (counts.length > 30 ? ", ..." : ""));
        }
        line.accept("");
    }
}
