package com.flashcoupon.api.gate;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.gate.SiteverifyAnswer.Check;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a siteverify answer must say beyond {@code success}, without a server: one wrong field at a time. */
class SiteverifyAnswerTest {

    private static final Instant NOW = Instant.parse("2020-03-01T12:00:00Z");

    private static HumanCheckProperties settings(List<String> hosts, List<String> apps, String action) {
        return HumanCheckSettings.siteverify(hosts, apps, action, Duration.ofMinutes(2));
    }

    private static final HumanCheckProperties STRICT =
            settings(List.of("Shop.Example"), List.of("com.example.shop"), "issue");

    private static Map<String, Object> answer(Object... more) {
        Map<String, Object> answer = new HashMap<>(Map.of(
                "success",
                true,
                "hostname",
                "shop.example",
                "action",
                "issue",
                "challenge_ts",
                "2020-03-01T11:59:30Z",
                "score",
                0.9));
        for (int i = 0; i < more.length; i += 2) {
            if (more[i + 1] == null) {
                answer.remove((String) more[i]);
            } else {
                answer.put((String) more[i], more[i + 1]);
            }
        }
        return answer;
    }

    @Test
    void shouldPassAnAnswerThatSaysWhatIsExpected() {
        assertThat(SiteverifyAnswer.failed(answer(), STRICT, NOW)).isNull();
        // an Android app's token names its package instead of a hostname
        assertThat(SiteverifyAnswer.failed(
                        answer("hostname", null, "apk_package_name", "com.example.shop"), STRICT, NOW))
                .isNull();
        // Turnstile and hCaptcha give no score; reCAPTCHA writes the offset without a colon; milliseconds
        assertThat(SiteverifyAnswer.failed(answer("score", null), STRICT, NOW)).isNull();
        assertThat(SiteverifyAnswer.failed(answer("challenge_ts", "2020-03-01T11:59:30+0000"), STRICT, NOW))
                .isNull();
        assertThat(SiteverifyAnswer.failed(answer("challenge_ts", "2020-03-01T11:59:30.096Z"), STRICT, NOW))
                .isNull();
        // nothing of the origin is checked with both lists empty (the local profile only), nor an action unset
        assertThat(SiteverifyAnswer.failed(
                        answer("hostname", "any.example", "action", "other"), settings(List.of(), List.of(), ""), NOW))
                .isNull();
    }

    @Test
    void shouldNameTheCheckEachWrongFieldFails() {
        assertThat(SiteverifyAnswer.failed(answer("success", false), STRICT, NOW))
                .isEqualTo(Check.REFUSED);
        assertThat(SiteverifyAnswer.failed(answer("success", "true"), STRICT, NOW))
                .isEqualTo(Check.REFUSED);
        assertThat(SiteverifyAnswer.failed(answer("hostname", "evil.example"), STRICT, NOW))
                .isEqualTo(Check.HOSTNAME);
        assertThat(SiteverifyAnswer.failed(answer("hostname", null), STRICT, NOW))
                .isEqualTo(Check.HOSTNAME);
        assertThat(SiteverifyAnswer.failed(answer("apk_package_name", "com.evil"), STRICT, NOW))
                .isEqualTo(Check.APP_PACKAGE);
        assertThat(SiteverifyAnswer.failed(answer("action", "login"), STRICT, NOW))
                .isEqualTo(Check.ACTION);
        assertThat(SiteverifyAnswer.failed(answer("action", null), STRICT, NOW)).isEqualTo(Check.ACTION);
        assertThat(SiteverifyAnswer.failed(answer("challenge_ts", "2020-03-01T11:57:59Z"), STRICT, NOW))
                .isEqualTo(Check.TOKEN_AGE);
        assertThat(SiteverifyAnswer.failed(answer("challenge_ts", null), STRICT, NOW))
                .isEqualTo(Check.TOKEN_AGE);
        assertThat(SiteverifyAnswer.failed(answer("challenge_ts", "yesterday"), STRICT, NOW))
                .isEqualTo(Check.TOKEN_AGE);
        assertThat(SiteverifyAnswer.failed(answer("challenge_ts", "2020-03-01T11:59:30"), STRICT, NOW))
                .isEqualTo(Check.TOKEN_AGE);
        assertThat(SiteverifyAnswer.failed(answer("score", 0.49), STRICT, NOW)).isEqualTo(Check.SCORE);
        // a site's hostname where only apps are allowed
        assertThat(SiteverifyAnswer.failed(answer(), settings(List.of(), List.of("com.example.shop"), ""), NOW))
                .isEqualTo(Check.HOSTNAME);
    }
}
