package com.flashcoupon.loadgen.crowd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.flashcoupon.loadgen.Flags;
import com.flashcoupon.loadgen.UsageException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CrowdSettingsTest {

    private static CrowdSettings settings(List<String> args, Map<String, String> env) {
        return CrowdSettings.from(Flags.parse(args, CrowdSettings.OPTIONS, env), env);
    }

    @Test
    void shouldUseTheDefaultsWhenNothingIsGiven() {
        CrowdSettings s = settings(List.of("--progress", "off"), Map.of());

        assertThat(s.api()).isEqualTo("http://127.0.0.1:8080");
        assertThat(s.members()).isEqualTo(20_000);
        assertThat(s.coupons()).isEqualTo(5_000);
        assertThat(s.twice()).isEqualTo(0.333);
        assertThat(s.concurrency()).isEqualTo(256);
        assertThat(s.rate()).isEqualTo(2_000);
        assertThat(s.batchBound()).isEqualTo(1_000);
        assertThat(s.issuanceTimeout()).isEqualTo(Duration.ofMinutes(10));
        assertThat(s.jwtSecret()).isEqualTo("flash-coupon-local-secret-do-not-use-in-production");
        assertThat(s.dbUrl()).isEqualTo("jdbc:mysql://127.0.0.1:3306/coupon");
        assertThat(s.dbUser()).isEqualTo("coupon");
        assertThat(s.dbPassword()).isEqualTo("coupon");
        assertThat(s.progress()).isEqualTo(ProgressMode.OFF);
        assertThat(s.stockShards()).isEqualTo(1);
    }

    @Test
    void shouldTakeStockShardsFromOneToSixtyFour() {
        assertThat(settings(List.of("--stock-shards", "6"), Map.of()).stockShards())
                .isEqualTo(6);
        assertThat(settings(List.of(), Map.of("CROWD_STOCK_SHARDS", "64")).stockShards())
                .isEqualTo(64);
        assertThatThrownBy(() -> settings(List.of("--stock-shards", "65"), Map.of()))
                .isInstanceOf(UsageException.class);
        assertThatThrownBy(() -> settings(List.of("--stock-shards", "0"), Map.of()))
                .isInstanceOf(UsageException.class);
    }

    @Test
    void shouldFallBackToTheEnvironment() {
        Map<String, String> env = Map.of(
                "COUPON_API_PORT", "9090",
                "COUPON_JWT_SECRET", "another-secret-that-is-long-enough-for-hs256",
                "COUPON_DB_URL", "jdbc:mysql://db:3306/x",
                "COUPON_DB_USER", "u",
                "COUPON_DB_PASSWORD", "p",
                "CROWD_MEMBERS", "50000");

        CrowdSettings s = settings(List.of(), env);

        assertThat(s.api()).isEqualTo("http://127.0.0.1:9090");
        assertThat(s.jwtSecret()).isEqualTo("another-secret-that-is-long-enough-for-hs256");
        assertThat(s.dbUrl()).isEqualTo("jdbc:mysql://db:3306/x");
        assertThat(s.dbUser()).isEqualTo("u");
        assertThat(s.dbPassword()).isEqualTo("p");
        assertThat(s.members()).isEqualTo(50_000);
    }

    @Test
    void shouldPreferFlagsOverTheEnvironment() {
        CrowdSettings s = settings(
                List.of("--members=1000", "--api", "http://localhost:18080/", "--wait", "90s", "--seed", "7"),
                Map.of("CROWD_MEMBERS", "50000", "COUPON_API_PORT", "9090"));

        assertThat(s.members()).isEqualTo(1_000);
        assertThat(s.api()).isEqualTo("http://localhost:18080");
        assertThat(s.issuanceTimeout()).isEqualTo(Duration.ofSeconds(90));
        assertThat(s.seed()).isEqualTo(7);
    }

    @Test
    void shouldReadDurationsInSeveralUnits() {
        assertThat(settings(List.of("--wait", "500ms"), Map.of()).issuanceTimeout())
                .isEqualTo(Duration.ofMillis(500));
        assertThat(settings(List.of("--wait", "2m"), Map.of()).issuanceTimeout())
                .isEqualTo(Duration.ofMinutes(2));
        assertThat(settings(List.of("--wait", "1h"), Map.of()).issuanceTimeout())
                .isEqualTo(Duration.ofHours(1));
        assertThat(settings(List.of("--wait", "45"), Map.of()).issuanceTimeout())
                .isEqualTo(Duration.ofSeconds(45));
    }

    @Test
    void shouldRefuseWhatCannotBeRun() {
        assertThatThrownBy(() -> settings(List.of("--members", "0"), Map.of()))
                .isInstanceOf(UsageException.class)
                .hasMessageContaining("--members");
        assertThatThrownBy(() -> settings(List.of("--twice", "1.5"), Map.of())).isInstanceOf(UsageException.class);
        assertThatThrownBy(() -> settings(List.of("--rate", "100001"), Map.of()))
                .isInstanceOf(UsageException.class);
        assertThatThrownBy(() -> settings(List.of("--wait", "soon"), Map.of())).isInstanceOf(UsageException.class);
        assertThatThrownBy(() -> settings(List.of("--api", "127.0.0.1:8080"), Map.of()))
                .isInstanceOf(UsageException.class);
        assertThatThrownBy(() -> settings(List.of("--jwt-secret", "short"), Map.of()))
                .isInstanceOf(UsageException.class);
        assertThatThrownBy(() -> settings(List.of("--nope", "1"), Map.of()))
                .isInstanceOf(UsageException.class)
                .hasMessageContaining("unknown flag: --nope");
        assertThatThrownBy(() -> settings(List.of("--members"), Map.of()))
                .isInstanceOf(UsageException.class)
                .hasMessageContaining("needs a value");
    }

    @Test
    void shouldNotShowTheSecretOrThePassword() {
        CrowdSettings s = settings(List.of("--db-password", "hunter2-hunter2"), Map.of());

        assertThat(s.toString()).doesNotContain("hunter2", s.jwtSecret());
    }
}
