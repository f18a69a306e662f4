package com.flashcoupon.api.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * One member, or one address, may have only a few requests in work at once ({@code coupon.inflight}, here 4 per member
 * and 8 per address): the next is answered 429 at once, while other members and addresses are served, and a member's
 * normal use (a live stream, an admission, status polls and the wallet at once) is never refused. Requests are held
 * in work by {@link HeldController}.
 */
class InFlightLimitTest extends SlowClientsTestBase {

    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final ParameterizedTypeReference<ServerSentEvent<Map<String, Object>>> EVENT =
            new ParameterizedTypeReference<>() {};

    private final List<String> holding = new ArrayList<>();
    private final List<Disposable> clients = new ArrayList<>();

    @AfterEach
    void releaseEverything() {
        holding.forEach(held::release);
        await().atMost(Duration.ofSeconds(10)).until(() -> inFlight() == 0);
        clients.forEach(Disposable::dispose);
    }

    @Test
    void shouldAnswer429ToAMemberWithTooManyRequestsInWorkAndServeOtherMembers() {
        double refusedBefore = counted("coupon.inflight.refused", "scope", "member");
        // from as many addresses: the member's own cap is what refuses
        for (int i = 0; i < PER_MEMBER; i++) {
            hold("busy-1", "198.51.100." + (10 + i));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> inFlight() == PER_MEMBER);

        expectProblem(wallet("busy-1", "198.51.100.99"), 429, "RATE_LIMITED");
        wallet("busy-1", "198.51.100.99").expectHeader().valueEquals("Retry-After", "1");
        assertThat(counted("coupon.inflight.refused", "scope", "member") - refusedBefore)
                .isEqualTo(2);
        wallet("calm-1", "198.51.100.99").expectStatus().isOk();

        // with its requests done, the member is served again
        holding.forEach(held::release);
        await().atMost(Duration.ofSeconds(10)).until(() -> inFlight() == 0);
        wallet("busy-1", "198.51.100.99").expectStatus().isOk();
    }

    @Test
    void shouldCapOneAddressWhicheverMembersItsRequestsComeFrom() {
        double refusedBefore = counted("coupon.inflight.refused", "scope", "address");
        for (int i = 0; i < PER_ADDRESS; i++) {
            hold("crowded-" + i, "198.51.100.120");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> inFlight() == PER_ADDRESS);

        expectProblem(wallet("crowded-new", "198.51.100.120"), 429, "RATE_LIMITED");
        assertThat(counted("coupon.inflight.refused", "scope", "address") - refusedBefore)
                .isEqualTo(1);
        // the same member from another address, and another member from there, are served
        wallet("crowded-new", "198.51.100.121").expectStatus().isOk();
        wallet("crowded-0", "198.51.100.121").expectStatus().isOk();
    }

    @Test
    void shouldNeverRefuseAMembersNormalUseAStreamAnAdmissionStatusPollsAndTheWallet() {
        long coupon = createCoupon(1_000, 1);
        String member = "normal-1";
        String address = "198.51.100.140";
        requestCoupon(coupon, member, address).expectStatus().isAccepted();
        List<ServerSentEvent<Map<String, Object>>> events = new CopyOnWriteArrayList<>();
        clients.add(web().get()
                .uri("/api/v1/coupons/{id}/issue-requests/me/events", coupon)
                .header("Authorization", bearer(member))
                .header("X-Forwarded-For", address)
                .accept(MediaType.TEXT_EVENT_STREAM)
                .retrieve()
                .bodyToFlux(EVENT)
                .subscribe(events::add, error -> {}));
        await().atMost(Duration.ofSeconds(10)).until(() -> events.stream().anyMatch(e -> "status".equals(e.event())));

        // with the stream open: asking again, two status polls and the wallet, all at once
        List<Integer> statuses = Flux.merge(
                        exchange(web().post().uri("/api/v1/coupons/{id}/issue-requests", coupon), member, address),
                        exchange(web().get().uri("/api/v1/coupons/{id}/issue-requests/me", coupon), member, address),
                        exchange(web().get().uri("/api/v1/coupons/{id}/issue-requests/me", coupon), member, address),
                        exchange(web().get().uri("/api/v1/me/coupons"), member, address))
                .collectList()
                .block(Duration.ofSeconds(30));
        assertThat(statuses).containsExactlyInAnyOrder(200, 200, 200, 200);
    }

    /** A member request held in work (an overload permit and the in-flight places) until the test ends. */
    private void hold(String member, String address) {
        String name = "held-" + NAMES.incrementAndGet();
        holding.add(name);
        clients.add(web().get()
                .uri("/api/v1/held/{name}", name)
                .header("Authorization", bearer(member))
                .header("X-Forwarded-For", address)
                .retrieve()
                .toBodilessEntity()
                .subscribe(answer -> {}, error -> {}));
    }

    private WebTestClient.ResponseSpec wallet(String member, String address) {
        return client().get()
                .uri("/api/v1/me/coupons")
                .header("Authorization", bearer(member))
                .header("X-Forwarded-For", address)
                .exchange();
    }

    private WebTestClient.ResponseSpec requestCoupon(long coupon, String member, String address) {
        return client().post()
                .uri("/api/v1/coupons/{id}/issue-requests", coupon)
                .header("Authorization", bearer(member))
                .header("X-Forwarded-For", address)
                .exchange();
    }

    private static reactor.core.publisher.Mono<Integer> exchange(
            org.springframework.web.reactive.function.client.WebClient.RequestHeadersSpec<?> request,
            String member,
            String address) {
        return request.header("Authorization", bearer(member))
                .header("X-Forwarded-For", address)
                .exchangeToMono(answer ->
                        answer.releaseBody().thenReturn(answer.statusCode().value()));
    }
}
