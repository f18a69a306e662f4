package com.flashcoupon.api.overload;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.RequiredSearch;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * One api for {@link SlowClientsTest} and {@link InFlightLimitTest} (one context: the same settings): a fixed overload
 * limit of 32, short HTTP time-outs, small in-flight caps, the rate limits on (the caps follow them) but high, and
 * 127.0.0.1 a trusted proxy, so that each test client says which address it comes from in {@code X-Forwarded-For}.
 */
@ApiTest
@Import(HeldController.class)
@TestPropertySource(
        properties = {
            "coupon.overload.initial-limit=" + SlowClientsTestBase.LIMIT,
            "coupon.overload.min-limit=" + SlowClientsTestBase.LIMIT,
            "coupon.overload.max-limit=" + SlowClientsTestBase.LIMIT,
            "coupon.ratelimit.member-per-second=1000",
            "coupon.ratelimit.address-per-second=1000",
            "coupon.ratelimit.trusted-proxies=127.0.0.1",
            "coupon.inflight.per-member=" + SlowClientsTestBase.PER_MEMBER,
            "coupon.inflight.per-address=" + SlowClientsTestBase.PER_ADDRESS,
            "coupon.http.read-timeout=8s",
            "coupon.http.request-timeout=10s",
            "coupon.http.idle-timeout=3s"
        })
abstract class SlowClientsTestBase extends ApiTestBase {

    static final int LIMIT = 32;
    static final int PER_MEMBER = 4;
    static final int PER_ADDRESS = 8;

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry meters;

    @Autowired
    HeldController held;

    /** Test clients drop a pooled connection idle for a second, before the api's idle time-out closes it under them. */
    private ConnectionProvider connections;

    @BeforeEach
    void connections() {
        connections = ConnectionProvider.builder("slow-clients-test")
                .maxIdleTime(Duration.ofSeconds(1))
                .build();
    }

    @AfterEach
    void closeConnections() {
        connections.dispose();
    }

    @Override
    protected WebTestClient client() {
        return WebTestClient.bindToServer(new ReactorClientHttpConnector(HttpClient.create(connections)))
                .baseUrl("http://127.0.0.1:" + port)
                .responseTimeout(Duration.ofSeconds(30))
                .build();
    }

    WebClient web() {
        return WebClient.builder()
                .clientConnector(new ReactorClientHttpConnector(HttpClient.create(connections)))
                .baseUrl("http://127.0.0.1:" + port)
                .build();
    }

    static String bearer(String member) {
        return "Bearer " + TestEnvironment.memberToken(member);
    }

    /** Member requests holding an overload permit now. */
    double inFlight() {
        return meters.get("coupon.overload.in.flight").gauge().value();
    }

    /** Member requests whose body is still arriving (no permit held); 0 where the api has no such gauge. */
    double reading() {
        var gauge = meters.find("coupon.overload.reading").gauge();
        return gauge == null ? 0 : gauge.value();
    }

    double counted(String name, String... tags) {
        var counter = RequiredSearch.in(meters).name(name).tags(tags);
        try {
            return counter.counter().count();
        } catch (io.micrometer.core.instrument.search.MeterNotFoundException e) {
            return 0;
        }
    }
}
