package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import tools.jackson.databind.json.JsonMapper;

/** Many members asking for one coupon at once, over real HTTP, with pre-signed tokens. */
final class Crowd {

    /** The status of a request that got no HTTP answer at all (connection refused or reset: the api was killed). */
    static final int NO_ANSWER = 0;

    /**
     * One answer: who asked and the status code they got ({@link #NO_ANSWER} for none, with what the client saw instead
     * in {@code noAnswer}: a failing test names it).
     */
    record Answer(String memberId, int status, String noAnswer) {

        Answer(String memberId, int status) {
            this(memberId, status, null);
        }
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * How long one request may wait for its answer before it counts as {@link #NO_ANSWER}. The tests check that every
     * request is answered, not how fast (benchmarks measure that): under a CPU hog, 15 of the first 256 requests to a
     * cold in-process api waited longer than the 30 s this was (PipelineTest, load 19 on two cores, all others
     * answered), while a killed api's requests end at once with a reset, whatever this is.
     */
    static final Duration ANSWER_WAIT = Duration.ofSeconds(90);

    private Crowd() {}

    /**
     * Every member asks once and {@code twice} of them a second time, all shuffled together, {@code concurrency} in
     * flight.
     */
    static List<Answer> ask(String apiUrl, long couponId, List<String> members, int twice, int concurrency) {
        return ask(apiUrl, couponId, members, twice, concurrency, new AtomicInteger());
    }

    /** The same, counting the answers in {@code answered} as they arrive, so that a test can act mid-crowd. */
    static List<Answer> ask(
            String apiUrl, long couponId, List<String> members, int twice, int concurrency, AtomicInteger answered) {
        return ask(apiUrl, couponId, members, twice, concurrency, answered, Pause.NONE);
    }

    /** The same, stopping at the pause point until the test resumes it: see {@link Pause}. */
    static List<Answer> ask(
            String apiUrl, long couponId, List<String> members, int twice, int concurrency, Pause pause) {
        return ask(apiUrl, couponId, members, twice, concurrency, new AtomicInteger(), pause);
    }

    private static List<Answer> ask(
            String apiUrl,
            long couponId,
            List<String> members,
            int twice,
            int concurrency,
            AtomicInteger answered,
            Pause pause) {
        List<String> requests = new ArrayList<>(members);
        requests.addAll(members.subList(0, twice));
        Collections.shuffle(requests, new Random(couponId));
        if (pause != Pause.NONE && pause.after() >= requests.size()) {
            throw new IllegalArgumentException(
                    "a pause after " + pause.after() + " of " + requests.size() + " requests is never reached");
        }
        Map<String, String> tokens = new ConcurrentHashMap<>();
        members.forEach(member -> tokens.put(member, Stack.token(member, List.of())));

        ConnectionProvider pool = ConnectionProvider.builder("crowd")
                .maxConnections(concurrency)
                .pendingAcquireMaxCount(-1)
                .build();
        try {
            HttpClient client = HttpClient.create(pool).baseUrl(apiUrl).responseTimeout(ANSWER_WAIT);
            return Flux.fromIterable(requests)
                    .index()
                    .flatMap(
                            indexed -> pause.around(
                                    indexed.getT1(),
                                    client.headers(h -> h.set("Authorization", "Bearer " + tokens.get(indexed.getT2())))
                                            .post()
                                            .uri("/api/v1/coupons/" + couponId + "/issue-requests")
                                            .responseSingle((response, body) -> body.asString()
                                                    .defaultIfEmpty("")
                                                    .map(text -> new Answer(
                                                            indexed.getT2(),
                                                            response.status().code())))
                                            .onErrorResume(noAnswer -> Mono.just(
                                                    new Answer(indexed.getT2(), NO_ANSWER, noAnswer.toString())))),
                            concurrency)
                    .doOnNext(answer -> answered.incrementAndGet())
                    .collectList()
                    .block(Duration.ofMinutes(5));
        } finally {
            pool.dispose();
        }
    }

    /**
     * A pause point in a crowd, so that a test acts at a moment it knows instead of racing the crowd: the first
     * {@code after} requests go at once; the others wait, unsent, until those were all answered and the test called
     * {@link #resume()}. {@link #holding()} tells when the first of the others waits (every request before it was sent,
     * some may still be in flight); {@link #reached()} when the first {@code after} were all answered (nothing of the
     * crowd is in flight), and then the crowd's list of answers holds those {@code after} answers first.
     */
    static final class Pause {

        /** No pause: every request goes at once. */
        static final Pause NONE = new Pause(Integer.MAX_VALUE);

        private final int after;
        private final AtomicInteger answeredBefore = new AtomicInteger();
        private final CompletableFuture<Void> holding = new CompletableFuture<>();
        private final CompletableFuture<Void> reached = new CompletableFuture<>();
        private final CompletableFuture<Void> resumed = new CompletableFuture<>();
        private final CompletableFuture<Void> go = reached.thenCombine(resumed, (paused, resumedToo) -> null);

        Pause(int after) {
            if (after < 1) {
                throw new IllegalArgumentException("pause after at least one request");
            }
            this.after = after;
        }

        int after() {
            return after;
        }

        /** Whether the requests after the first {@code after} wait (those may not all be answered yet). */
        boolean holding() {
            return holding.isDone();
        }

        /** Whether the first {@code after} requests were all answered (and the others wait). */
        boolean reached() {
            return reached.isDone();
        }

        /** Lets the waiting requests go, once the first {@code after} were answered. */
        void resume() {
            resumed.complete(null);
        }

        private Mono<Answer> around(long index, Mono<Answer> request) {
            if (this == NONE) {
                return request;
            }
            if (index < after) {
                return request.doOnNext(answer -> {
                    if (answeredBefore.incrementAndGet() == after) {
                        reached.complete(null);
                    }
                });
            }
            // a copy: a request cancelled while it waits must not cancel the gate of the others
            return Mono.defer(() -> {
                        holding.complete(null);
                        return Mono.fromFuture(go.copy());
                    })
                    .then(request);
        }
    }

    /**
     * Asks again the members whose every answer was "not confirmed" ({@code unconfirmed}: a 503, and {@link #NO_ANSWER}
     * where the api was killed), until each gets another answer: whether such a request was admitted before its answer
     * was lost, only asking again tells (200: admitted before). Those answered so again ask again a second later (after
     * a fault the api may need a moment: its Redis connection back, a restarted process ready), for at most
     * {@code patience}. Returns each such member's last answer.
     */
    static List<Answer> askAgain(
            String apiUrl, long couponId, List<Answer> answers, Set<Integer> unconfirmed, Duration patience) {
        Set<String> told202 = answers.stream()
                .filter(answer -> answer.status() == 202)
                .map(Answer::memberId)
                .collect(Collectors.toSet());
        Set<String> asking = answers.stream()
                .filter(answer -> unconfirmed.contains(answer.status()))
                .map(Answer::memberId)
                .filter(member -> !told202.contains(member))
                .collect(Collectors.toCollection(HashSet::new));
        Map<String, Answer> last = new ConcurrentHashMap<>();
        if (asking.isEmpty()) {
            return List.of();
        }
        await().atMost(patience)
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> {
                    for (Answer answer : ask(apiUrl, couponId, List.copyOf(asking), 0, 32)) {
                        last.put(answer.memberId(), answer);
                        if (!unconfirmed.contains(answer.status())) {
                            asking.remove(answer.memberId());
                        }
                    }
                    assertThat(asking)
                            .as("members still not told whether they were admitted")
                            .isEmpty();
                });
        return List.copyOf(last.values());
    }

    /**
     * Each member reads their status resource ({@code GET .../issue-requests/me}), {@code concurrency} at once; the
     * {@code status} field of each answer, or {@code "HTTP <code>"} when it was not a 200.
     */
    static Map<String, String> statuses(String apiUrl, long couponId, Collection<String> members, int concurrency) {
        ConnectionProvider pool = ConnectionProvider.builder("statuses")
                .maxConnections(concurrency)
                .pendingAcquireMaxCount(-1)
                .build();
        try {
            HttpClient client = HttpClient.create(pool).baseUrl(apiUrl).responseTimeout(ANSWER_WAIT);
            return Flux.fromIterable(members)
                    .flatMap(
                            member -> client.headers(
                                            h -> h.set("Authorization", "Bearer " + Stack.token(member, List.of())))
                                    .get()
                                    .uri("/api/v1/coupons/" + couponId + "/issue-requests/me")
                                    .responseSingle((response, body) -> body.asString()
                                            .defaultIfEmpty("")
                                            .map(text -> response.status().code() == 200
                                                    ? JSON.readTree(text)
                                                            .path("status")
                                                            .asString()
                                                    : "HTTP "
                                                            + response.status().code()))
                                    .onErrorResume(noAnswer -> Mono.just("no answer"))
                                    .map(status -> Map.entry(member, status)),
                            concurrency)
                    .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                    .block(Duration.ofMinutes(5));
        } finally {
            pool.dispose();
        }
    }

    /** What the requests that got no answer saw instead, counted: for a failing assertion's message. */
    static Map<String, Long> noAnswers(List<Answer> answers) {
        return answers.stream()
                .filter(answer -> answer.status() == NO_ANSWER)
                .collect(Collectors.groupingBy(Answer::noAnswer, Collectors.counting()));
    }

    static Map<Integer, Long> countByStatus(List<Answer> answers) {
        return answers.stream().collect(Collectors.groupingBy(Answer::status, Collectors.counting()));
    }

    static List<String> members(String prefix, int count) {
        List<String> members = new ArrayList<>(count);
        for (int i = 1; i <= count; i++) {
            members.add(prefix + "-" + i);
        }
        return members;
    }

    /** A coupon a crowd was issued: its id and the crowd's answers. */
    record Issued(long couponId, List<Answer> answers) {}

    /**
     * A coupon of {@code coupons} on {@code stack} that {@code askers} members (more than the coupons) ask for, {@code
     * concurrency} at a time: exactly {@code coupons} answered 202, as many wallets in MySQL, and as many members told
     * ISSUED by the api (the worker's results read back through Redis).
     */
    static Issued issuedOn(Stack stack, String name, int coupons, int askers, int concurrency) {
        return issuedOn(stack, name, coupons, askers, concurrency, 1);
    }

    /** As above, for an event of {@code shards} stock shards. */
    static Issued issuedOn(Stack stack, String name, int coupons, int askers, int concurrency, int shards) {
        long couponId = Stack.createCoupon(stack.http(), name, coupons, 1_000, shards);
        List<String> members = members(name.toLowerCase(Locale.ROOT), askers);
        List<Answer> answers = ask(stack.apiUrl(), couponId, members, 0, concurrency);
        assertThat(countByStatus(answers)).containsEntry(202, (long) coupons);
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> stack.walletCount(couponId) == coupons);
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> statuses(stack.apiUrl(), couponId, members, concurrency).values().stream()
                                .filter("ISSUED"::equals)
                                .count()
                        == coupons);
        assertThat(stack.walletCount(couponId)).isEqualTo(coupons);
        return new Issued(couponId, answers);
    }
}
