package com.flashcoupon.api.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Clients that announce a body and do not send it, send it a byte at a time, or send nothing at all. Before, a body
 * that never came held an overload permit for as long as its connection stayed open, and no time-out closed it: a few
 * members holding the guard's limit of such requests on the wallet's {@code use} or the devices' {@code PUT} made the
 * instance answer every other member 503. Now a body is read before its request takes a permit, the server closes a
 * connection whose body is late or that sits idle, and one address may keep only a few bodies waiting.
 */
class SlowClientsTest extends SlowClientsTestBase {

    private static final Duration CLOSING = Duration.ofSeconds(60);

    private SlowClients clients;

    @AfterEach
    void closeClients() {
        if (clients != null) {
            clients.close();
        }
        await().atMost(CLOSING).until(() -> reading() == 0 && inFlight() == 0);
    }

    @Test
    void shouldServeOtherMembersWhileBodiesThatNeverComeAreHeldThenCloseThemAfterTheTimeOut() throws IOException {
        clients = new SlowClients(port);
        long coupon = createCoupon(1_000, 10);
        double notArrivedBefore = counted("coupon.overload.bodies.not.arrived");
        // 10 members from 10 addresses, each address as many as it may keep waiting: 2.5 times the guard's limit, the
        // body-reading endpoints among them, and the others with a body announced too
        String[][] endpoints = {
            {"POST", "/api/v1/me/coupons/1/use"},
            {"PUT", "/api/v1/me/devices/tok-slow"},
            {"GET", "/api/v1/coupons/" + coupon + "/issue-requests/me"},
            {"POST", "/api/v1/coupons/" + coupon + "/issue-requests"},
            {"GET", "/api/v1/me/coupons"},
        };
        int held = 10 * PER_ADDRESS;
        for (int i = 0; i < held; i++) {
            String[] endpoint = endpoints[i % endpoints.length];
            clients.holdBody(endpoint[0], endpoint[1], "slow-" + (i % 10), "198.51.100." + (1 + i % 10));
        }

        // other members, each from an address of their own: admitted, told their status, shown their wallet
        List<String> answers = Flux.range(0, 20)
                .flatMap(i -> victim(coupon, "victim-" + i, "203.0.113." + (1 + i)))
                .collectList()
                .block(Duration.ofSeconds(60));
        assertThat(answers).hasSize(20).containsOnly("202 200 200");

        // the api holds every slow request, none of them with a permit
        await().atMost(Duration.ofSeconds(30)).until(() -> reading() == held);
        await().atMost(Duration.ofSeconds(30)).until(() -> inFlight() == 0);

        // and closes their connections once their bodies are late, having answered nothing but 408 (which a client
        // that stopped reading may never see): never the empty 200 a handler that ends without answering gets
        for (Socket socket : clients.sockets()) {
            await().atMost(CLOSING).until(() -> SlowClients.closedByServer(socket));
            assertThat(SlowClients.statusesReceived(socket)).isSubsetOf("408");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> reading() == 0);
        assertThat(counted("coupon.overload.bodies.not.arrived") - notArrivedBefore)
                .isEqualTo(held);
    }

    @Test
    void shouldCloseAnAdminRequestWhoseBodyNeverComesAnsweringNothingBut408() throws IOException {
        clients = new SlowClients(port);
        // the admin API is not behind the overload guard: its controller waits for the body itself
        Socket socket = clients.holdBody("POST", "/admin/v1/coupons", "operator", "198.51.100.60");

        await().atMost(CLOSING).until(() -> SlowClients.closedByServer(socket));
        assertThat(SlowClients.statusesReceived(socket)).isSubsetOf("408");
    }

    @Test
    void shouldCloseAConnectionThatTricklesItsBodyAtTheRequestTimeOut() throws Exception {
        clients = new SlowClients(port);
        Socket socket = clients.silent();
        AtomicInteger sent = new AtomicInteger();
        AtomicBoolean refused = new AtomicBoolean();
        Thread trickle = Thread.ofVirtual().start(() -> {
            try {
                OutputStream out = socket.getOutputStream();
                out.write(SlowClients.head("POST", "/api/v1/me/coupons/1/use", "trickle-1", "198.51.100.50", 16_000)
                        .getBytes(StandardCharsets.US_ASCII));
                // a byte every 200 ms: well within the read time-out, far too slow for the request's
                while (sent.get() < 16_000) {
                    out.write(' ');
                    out.flush();
                    sent.incrementAndGet();
                    Thread.sleep(200);
                }
            } catch (IOException e) {
                refused.set(true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> reading() == 1);
        assertThat(inFlight()).as("a body arriving holds no permit").isZero();

        await().atMost(CLOSING).until(refused::get);
        trickle.join();
        assertThat(sent.get()).isLessThan(16_000);
        await().atMost(CLOSING).until(() -> SlowClients.closedByServer(socket));
        assertThat(SlowClients.statusesReceived(socket)).isSubsetOf("408");
    }

    @Test
    void shouldCloseAConnectionThatStaysIdle() throws IOException {
        clients = new SlowClients(port);
        // nothing ever sent
        Socket silent = clients.silent();
        // one answered request, then nothing more on the keep-alive connection
        Socket kept = clients.silent();
        kept.getOutputStream()
                .write("GET /actuator/health/liveness HTTP/1.1\r\nHost: localhost\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
        kept.getOutputStream().flush();
        assertThat(SlowClients.statuses(kept)).containsExactly("200");

        await().atMost(CLOSING).until(() -> SlowClients.closedByServer(silent));
        await().atMost(CLOSING).until(() -> SlowClients.closedByServer(kept));
    }

    @Test
    void shouldCloseAConnectionThatTricklesItsHeaders() throws Exception {
        clients = new SlowClients(port);
        Socket socket = clients.silent();
        String head =
                "GET /api/v1/me/coupons HTTP/1.1\r\nHost: localhost\r\nX-Padding: " + "a".repeat(8_000) + "\r\n\r\n";
        AtomicBoolean closed = new AtomicBoolean();
        AtomicInteger sent = new AtomicInteger();
        Thread trickle = Thread.ofVirtual().start(() -> {
            try {
                OutputStream out = socket.getOutputStream();
                // a byte every 500 ms: each one well within the idle time-out
                while (sent.get() < head.length()) {
                    out.write(head.charAt(sent.get()));
                    out.flush();
                    sent.incrementAndGet();
                    Thread.sleep(500);
                }
            } catch (IOException e) {
                closed.set(true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        await().atMost(CLOSING).until(closed::get);
        trickle.join();
        assertThat(sent.get()).isLessThan(head.length());
    }

    @Test
    void shouldAnswer429ToAnAddressKeepingTooManyBodiesWaitingAndServeOtherAddresses() throws IOException {
        clients = new SlowClients(port);
        double refusedBefore = counted("coupon.inflight.refused", "scope", "address");
        for (int i = 0; i < PER_ADDRESS; i++) {
            clients.holdBody("PUT", "/api/v1/me/devices/tok-many-" + i, "many-" + i, "198.51.100.77");
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> reading() == PER_ADDRESS);

        Socket over = clients.holdBody("PUT", "/api/v1/me/devices/tok-over", "many-over", "198.51.100.77");
        assertThat(SlowClients.statuses(over)).containsExactly("429");
        await().atMost(Duration.ofSeconds(30)).until(() -> SlowClients.closedByServer(over));
        assertThat(counted("coupon.inflight.refused", "scope", "address") - refusedBefore)
                .isEqualTo(1);

        // another address is not concerned
        clients.holdBody("PUT", "/api/v1/me/devices/tok-elsewhere", "many-over", "198.51.100.78");
        await().atMost(Duration.ofSeconds(30)).until(() -> reading() == PER_ADDRESS + 1);
    }

    @Test
    void shouldHandAChunkedBodyToTheEndpointAndAnswer413ToOneOver16KiB() throws IOException {
        clients = new SlowClients(port);
        Socket small = clients.silent();
        small.getOutputStream().write(chunked("PUT", "/api/v1/me/devices/tok-chunked", "{\"platform\":\"ANDROID\"}"));
        assertThat(SlowClients.statuses(small)).containsExactly("204");
        assertThat(jdbc.sql("SELECT member_id FROM member_device WHERE device_token = 'tok-chunked'")
                        .query(String.class)
                        .single())
                .isEqualTo("chunked-1");

        Socket large = clients.silent();
        large.getOutputStream()
                .write(chunked("PUT", "/api/v1/me/devices/tok-large", "{\"platform\":\"" + "A".repeat(17_000) + "\"}"));
        assertThat(SlowClients.statuses(large)).containsExactly("413");
    }

    private static byte[] chunked(String method, String path, String body) {
        String head = SlowClients.head(method, path, "chunked-1", "198.51.100.90", 0)
                .replace("Content-Length: 0", "Transfer-Encoding: chunked");
        StringBuilder request = new StringBuilder(head);
        // in chunks of 1,000 bytes, then the last, empty one
        for (int at = 0; at < body.length(); at += 1_000) {
            String chunk = body.substring(at, Math.min(body.length(), at + 1_000));
            request.append(Integer.toHexString(chunk.length()))
                    .append("\r\n")
                    .append(chunk)
                    .append("\r\n");
        }
        return request.append("0\r\n\r\n").toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** A member's admission, status and wallet: their status codes in one line. */
    private Mono<String> victim(long coupon, String member, String address) {
        var web = web();
        Mono<Integer> admission = web.post()
                .uri("/api/v1/coupons/{id}/issue-requests", coupon)
                .header("Authorization", bearer(member))
                .header("X-Forwarded-For", address)
                .exchangeToMono(answer ->
                        answer.releaseBody().thenReturn(answer.statusCode().value()));
        Mono<Integer> status = web.get()
                .uri("/api/v1/coupons/{id}/issue-requests/me", coupon)
                .header("Authorization", bearer(member))
                .header("X-Forwarded-For", address)
                .exchangeToMono(answer ->
                        answer.releaseBody().thenReturn(answer.statusCode().value()));
        Mono<Integer> wallet = web.get()
                .uri("/api/v1/me/coupons")
                .header("Authorization", bearer(member))
                .header("X-Forwarded-For", address)
                .exchangeToMono(answer ->
                        answer.releaseBody().thenReturn(answer.statusCode().value()));
        return admission.flatMap(a -> status.flatMap(s -> wallet.map(w -> a + " " + s + " " + w)));
    }
}
