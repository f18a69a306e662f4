package com.flashcoupon.pipeline;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
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

    /** One answer: who asked and the status code they got ({@link #NO_ANSWER} for none). */
    record Answer(String memberId, int status) {}

    private static final JsonMapper JSON = JsonMapper.builder().build();

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
        List<String> requests = new ArrayList<>(members);
        requests.addAll(members.subList(0, twice));
        Collections.shuffle(requests, new Random(couponId));
        Map<String, String> tokens = new ConcurrentHashMap<>();
        members.forEach(member -> tokens.put(member, Stack.token(member, List.of())));

        ConnectionProvider pool = ConnectionProvider.builder("crowd")
                .maxConnections(concurrency)
                .pendingAcquireMaxCount(-1)
                .build();
        try {
            HttpClient client = HttpClient.create(pool).baseUrl(apiUrl).responseTimeout(Duration.ofSeconds(30));
            return Flux.fromIterable(requests)
                    .flatMap(
                            member -> client.headers(h -> h.set("Authorization", "Bearer " + tokens.get(member)))
                                    .post()
                                    .uri("/api/v1/coupons/" + couponId + "/issue-requests")
                                    .responseSingle((response, body) -> body.asString()
                                            .defaultIfEmpty("")
                                            .map(text -> new Answer(
                                                    member, response.status().code())))
                                    .onErrorResume(noAnswer -> Mono.just(new Answer(member, NO_ANSWER))),
                            concurrency)
                    .doOnNext(answer -> answered.incrementAndGet())
                    .collectList()
                    .block(Duration.ofMinutes(3));
        } finally {
            pool.dispose();
        }
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
            HttpClient client = HttpClient.create(pool).baseUrl(apiUrl).responseTimeout(Duration.ofSeconds(30));
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
                    .block(Duration.ofMinutes(3));
        } finally {
            pool.dispose();
        }
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
}
