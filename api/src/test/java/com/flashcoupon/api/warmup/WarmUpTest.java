package com.flashcoupon.api.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiInstance;
import com.flashcoupon.api.support.JwksServer;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.StockShards;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The api warms its member path up on coupons of its own before it is ready, through its own HTTP port, one of one
 * stock shard and one of several, and leaves nothing behind: no key of either coupon in Redis (on any shard), no row
 * in MySQL. The coupons are its own: another instance's warm-up coupon is left alone.
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
        // another instance warming up at the same time, on the id every instance once shared: left alone
        long other = Long.MAX_VALUE;
        TestEnvironment.redis().opsForHash().put(CouponKeys.meta(other), "name", "another instance's warm-up");
        try (ConfigurableApplicationContext api = ApiInstance.start(kafka.getBrokersAsString(), settings)) {
            WarmUp warmUp = api.getBean(WarmUp.class);
            long own = warmUp.couponId();
            long sharded = warmUp.shardedCouponId();
            assertThat(own).isNotEqualTo(other);
            assertThat(CouponKeys.isWarmUp(own)).isTrue();
            assertThat(CouponKeys.isWarmUp(sharded)).isTrue();
            assertThat(warmUp.admitted(false))
                    .as("members admitted on the one-shard coupon")
                    .isEqualTo(50);
            assertThat(warmUp.admitted(true))
                    .as("members admitted on the sharded coupon, each on its home shard")
                    .isEqualTo(50);
            assertThat(TestEnvironment.redis().hasKey(CouponKeys.meta(other)))
                    .as("another instance's warm-up coupon")
                    .isTrue();
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
            for (long coupon : java.util.List.of(own, sharded)) {
                for (String key : CouponKeys.state(coupon)) {
                    assertThat(TestEnvironment.redis().hasKey(key)).as(key).isFalse();
                }
            }
            for (int shard = 0; shard < WarmUp.SHARDS; shard++) {
                for (String key : StockShards.state(sharded, WarmUp.SHARDS, shard)) {
                    assertThat(TestEnvironment.redis().hasKey(key)).as(key).isFalse();
                }
            }
            Long rows = org.springframework.jdbc.core.simple.JdbcClient.create(api.getBean(javax.sql.DataSource.class))
                    .sql("SELECT COUNT(*) FROM coupon WHERE id IN (?, ?)")
                    .params(own, sharded)
                    .query(Long.class)
                    .single();
            assertThat(rows).isZero();
        } finally {
            TestEnvironment.redis().delete(CouponKeys.meta(other));
            kafka.destroy();
        }
    }

    /**
     * With a JWK set (production), the warm-up cannot mint a token the api accepts; it once sent "not-a-token", which
     * warmed only the parse failure. Its RS256 tokens reach the JWK set, the path every member's token takes.
     */
    @Test
    void shouldWarmTheJwkDecodingWhenTokensComeFromAnIdentityProvider() throws Exception {
        EmbeddedKafkaKraftBroker kafka = new EmbeddedKafkaKraftBroker(1, 1);
        kafka.brokerListProperty("flash-coupon.private.kafka.warm-up-jwk");
        kafka.afterPropertiesSet();
        try (JwksServer idp = new JwksServer()) {
            idp.serve(JwksServer.newKey("idp-key"));
            Map<String, String> settings = Map.of(
                    "coupon.jwt.secret", "",
                    "coupon.jwt.jwk-set-uri", idp.uri(),
                    "coupon.jwt.issuer", JwksServer.ISSUER,
                    "coupon.jwt.audience", JwksServer.AUDIENCE,
                    "coupon.ratelimit.member-per-second", "0",
                    "coupon.ratelimit.address-per-second", "0",
                    "coupon.warmup.requests", "30",
                    "coupon.warmup.at-most", "2m");
            try (ConfigurableApplicationContext api = ApiInstance.start(kafka.getBrokersAsString(), settings)) {
                assertThat(idp.fetches())
                        .as("the JWK set fetched by the warm-up's tokens")
                        .isPositive();
            }
        } finally {
            kafka.destroy();
        }
    }
}
