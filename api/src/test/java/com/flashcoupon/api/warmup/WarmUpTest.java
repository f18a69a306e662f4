package com.flashcoupon.api.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiInstance;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The api warms its member path up on a coupon of its own before it is ready, through its own HTTP port, and leaves
 * nothing behind: no key of that coupon in Redis, no row in MySQL.
 */
class WarmUpTest {

    @Test
    void shouldAdmitOnItsOwnCouponBeforeItIsReadyAndLeaveNothingBehind() {
        EmbeddedKafkaKraftBroker kafka = new EmbeddedKafkaKraftBroker(1, 1);
        kafka.brokerListProperty("flash-coupon.private.kafka.warm-up");
        kafka.afterPropertiesSet();
        Map<String, String> settings = Map.of(
                "coupon.ratelimit.member-per-second", "5",
                "coupon.ratelimit.address-per-second", "5", // the warm-up's coupon is not limited by address
                "coupon.warmup.requests", "300",
                "coupon.warmup.at-most", "2m"); // all of it, however busy the machine
        try (ConfigurableApplicationContext api = ApiInstance.start(kafka.getBrokersAsString(), settings)) {
            MeterRegistry meters = api.getBean(MeterRegistry.class);
            assertThat(meters.get("coupon.admissions")
                            .tag("outcome", "ADMITTED")
                            .counter()
                            .count())
                    .as("members the warm-up admitted (a third of its requests)")
                    .isEqualTo(100);
            assertThat(meters.get("coupon.admissions")
                            .tag("outcome", "ALREADY_ASKED")
                            .counter()
                            .count())
                    .isEqualTo(100);
            assertThat(api.getBean(ApplicationAvailability.class).getReadinessState())
                    .isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
            for (String key : CouponKeys.state(CouponKeys.WARM_UP_ID)) {
                assertThat(TestEnvironment.redis().hasKey(key)).as(key).isFalse();
            }
            Long rows = org.springframework.jdbc.core.simple.JdbcClient.create(api.getBean(javax.sql.DataSource.class))
                    .sql("SELECT COUNT(*) FROM coupon WHERE id = ?")
                    .param(CouponKeys.WARM_UP_ID)
                    .query(Long.class)
                    .single();
            assertThat(rows).isZero();
        } finally {
            kafka.destroy();
        }
    }
}
