package com.flashcoupon.api.coupon;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.db.CouponRepository;
import com.flashcoupon.db.NewCoupon;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Issue 27: every instance listed the events from MySQL on each drain tick (5 a second), each retirer pass and each
 * gauge refresh, so MySQL's load grew with the instance count. Three instances' lists on one MySQL and one Redis: each
 * reads MySQL once, answers its next calls from its copy, and reads again once after an event is created on any of
 * them.
 */
class EventListTest {

    private static final int TICKS = 50; // ten seconds of drain ticks

    private final CouponRepository coupons =
            new CouponRepository(JdbcClient.create(TestEnvironment.database().migratedDataSource()));
    private final StringRedisTemplate redis = TestEnvironment.redis();

    private record Instance(EventList list, SimpleMeterRegistry meters) {

        double reads() {
            return meters.get("coupon.events.list.reads").counter().count();
        }
    }

    private Instance instance() {
        var meters = new SimpleMeterRegistry();
        return new Instance(new EventList(coupons, redis, meters), meters);
    }

    private long create(String name) {
        Instant open = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        return coupons.insert(new NewCoupon(name, 10, open, open.plus(1, ChronoUnit.HOURS), 10, 30));
    }

    @Test
    void shouldReadMySqlOncePerInstanceUntilTheListChanges() {
        long before = create("before");
        List<Instance> instances = List.of(instance(), instance(), instance());

        for (Instance instance : instances) {
            IntStream.range(0, TICKS)
                    .forEach(
                            tick -> assertThat(instance.list().withRedisState()).contains(before));
        }
        // before: one read per call, 3 x 50
        assertThat(instances)
                .allSatisfy(instance -> assertThat(instance.reads()).isEqualTo(1));

        long created = create("created on the first instance");
        instances.getFirst().list().changed();
        for (Instance instance : instances) {
            IntStream.range(0, TICKS)
                    .forEach(
                            tick -> assertThat(instance.list().withRedisState()).contains(before, created));
        }
        assertThat(instances)
                .allSatisfy(instance -> assertThat(instance.reads()).isEqualTo(2));
    }
}
