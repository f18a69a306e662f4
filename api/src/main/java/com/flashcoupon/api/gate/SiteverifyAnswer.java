package com.flashcoupon.api.gate;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a siteverify answer must say for a token to pass, beyond {@code success} (docs/operations.md, human checks):
 * where the token was made (the answer's {@code hostname}, or {@code apk_package_name} for an Android app), for which
 * {@code action}, how long ago ({@code challenge_ts}), and, when the service scores (reCAPTCHA v3), how human it
 * looked ({@code score}). Plain Java, no Spring: the rules are tested without a server.
 */
final class SiteverifyAnswer {

    /** Why an answer is refused: the {@code check} of the 403 PROOF_INVALID problem. */
    enum Check {
        /** {@code success} is not true: the service itself refused the token. */
        REFUSED,
        /** the token was made on a site not in {@code COUPON_HUMAN_CHECK_ALLOWED_HOSTNAMES}, or names none. */
        HOSTNAME,
        /** the token was made in an app not in {@code COUPON_HUMAN_CHECK_ALLOWED_APP_PACKAGES}. */
        APP_PACKAGE,
        /** the token was made for another action than {@code COUPON_HUMAN_CHECK_EXPECTED_ACTION}. */
        ACTION,
        /** the token is older than {@code COUPON_HUMAN_CHECK_MAX_TOKEN_AGE}, or its time is missing. */
        TOKEN_AGE,
        /** the service scored it below {@code COUPON_HUMAN_CHECK_MIN_SCORE}. */
        SCORE
    }

    /** ISO 8601 with an offset written {@code Z}, {@code +00:00} or {@code +0000}, seconds' fractions optional. */
    private static final DateTimeFormatter TIME = new DateTimeFormatterBuilder()
            .append(DateTimeFormatter.ISO_LOCAL_DATE_TIME)
            .appendPattern("[XXX][XX]")
            .toFormatter(Locale.ROOT);

    private SiteverifyAnswer() {}

    /** The first check the answer fails, or null when it passes them all. */
    static Check failed(Map<?, ?> answer, HumanCheckProperties settings, Instant now) {
        if (!Boolean.TRUE.equals(answer.get("success"))) {
            return Check.REFUSED;
        }
        Check origin = origin(answer, settings.allowedHostnames(), settings.allowedAppPackages());
        if (origin != null) {
            return origin;
        }
        if (!settings.expectedAction().isEmpty() && !settings.expectedAction().equals(answer.get("action"))) {
            return Check.ACTION;
        }
        Instant made = time(answer.get("challenge_ts"));
        if (made == null || Duration.between(made, now).compareTo(settings.maxTokenAge()) > 0) {
            return Check.TOKEN_AGE;
        }
        if (answer.get("score") instanceof Number score && score.doubleValue() < settings.minScore()) {
            return Check.SCORE;
        }
        return null;
    }

    /**
     * Where the token was made: an app's package when the answer names one, else the site's hostname (compared without
     * case). With both lists empty (the local profile only), not checked.
     */
    private static Check origin(Map<?, ?> answer, List<String> hostnames, List<String> packages) {
        if (hostnames.isEmpty() && packages.isEmpty()) {
            return null;
        }
        if (answer.get("apk_package_name") instanceof String app && !app.isEmpty()) {
            return packages.contains(app) ? null : Check.APP_PACKAGE;
        }
        if (answer.get("hostname") instanceof String host) {
            String lower = host.toLowerCase(Locale.ROOT);
            if (hostnames.stream()
                    .anyMatch(allowed -> allowed.toLowerCase(Locale.ROOT).equals(lower))) {
                return null;
            }
        }
        return Check.HOSTNAME;
    }

    /** {@code challenge_ts} as an instant; null when it is missing or not a time with an offset. */
    private static Instant time(Object value) {
        if (!(value instanceof String text)) {
            return null;
        }
        try {
            return OffsetDateTime.parse(text, TIME).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
