package com.flashcoupon.api.gate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.channel.ChannelOption;
import java.net.URI;
import java.time.Clock;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.stereotype.Component;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * Checks a human-check service's token with the {@code siteverify} protocol Turnstile, reCAPTCHA and hCaptcha share:
 * a form POST of {@code secret}, {@code response} and {@code remoteip} (the member's address, as the rate limits see
 * it), answered by JSON. The token passes only when the answer says {@code success} and passes every check of
 * {@link SiteverifyAnswer}: where it was made, its action, its age and its score. Fails closed: no answer within the
 * time-out, an error, or no URL configured reads {@code U} (503 to the member), never a pass.
 *
 * <p>Outside the local profile the URL must be https (it carries the site's secret and members' addresses), and at
 * least one allowed hostname or app package must be set: otherwise the api does not start.
 */
@Component
class SiteVerifier {

    private static final Logger log = LoggerFactory.getLogger(SiteVerifier.class);

    /** gate.lua's reading ({@code S} accepted, {@code X} refused, {@code U} no answer) and, when refused, why. */
    record Verdict(String reading, SiteverifyAnswer.Check check) {

        static final Verdict UNANSWERED = new Verdict("U", null);
        static final Verdict ACCEPTED = new Verdict("S", null);
    }

    private final WebClient client;
    private final HumanCheckProperties properties;
    private final Clock clock;
    private final Timer latency;
    private final Map<SiteverifyAnswer.Check, Counter> refusals = new EnumMap<>(SiteverifyAnswer.Check.class);

    SiteVerifier(HumanCheckProperties properties, Clock clock, MeterRegistry meters, Environment environment) {
        requireSafe(properties, environment.matchesProfiles("local"));
        // the time-out is the connection's own (a read time-out on its event loop), so that a service that never
        // answers is given up without a cancel from another thread; the Mono's timeout below is only a backstop
        HttpClient http = HttpClient.create()
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int)
                        properties.verifyTimeout().toMillis())
                .responseTimeout(properties.verifyTimeout());
        this.client = WebClient.builder()
                .clientConnector(new ReactorClientHttpConnector(http))
                .build();
        this.properties = properties;
        this.clock = clock;
        this.latency = Timer.builder("coupon.human.check.siteverify")
                .description("Time the siteverify service took to answer one admission's token")
                .register(meters);
        for (SiteverifyAnswer.Check check : SiteverifyAnswer.Check.values()) {
            refusals.put(
                    check,
                    Counter.builder("coupon.human.check.siteverify.refused")
                            .description("siteverify answers refused, by the check they failed")
                            .tag("check", check.name().toLowerCase(Locale.ROOT))
                            .register(meters));
        }
    }

    /**
     * Outside the local profile: an https URL, and where tokens may come from. Without the first, the site's secret
     * and members' addresses cross the network in clear text; without the second, a token made on any site that uses
     * the same service's keys would pass.
     */
    static void requireSafe(HumanCheckProperties properties, boolean localProfile) {
        if (properties.verifyUrl().isBlank()) {
            return;
        }
        URI url;
        try {
            url = URI.create(properties.verifyUrl().strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("COUPON_HUMAN_CHECK_VERIFY_URL is not a URL.");
        }
        if (localProfile) {
            if (properties.allowedHostnames().isEmpty()
                    && properties.allowedAppPackages().isEmpty()) {
                log.warn("COUPON_HUMAN_CHECK_ALLOWED_HOSTNAMES and COUPON_HUMAN_CHECK_ALLOWED_APP_PACKAGES are not set:"
                        + " siteverify tokens made on any site or app are accepted (local profile only)");
            }
            return;
        }
        if (!"https".equalsIgnoreCase(url.getScheme()) || url.getHost() == null) {
            throw new IllegalStateException("COUPON_HUMAN_CHECK_VERIFY_URL must be an https URL outside the local"
                    + " profile: it carries the site's secret and the members' addresses.");
        }
        if (properties.allowedHostnames().isEmpty()
                && properties.allowedAppPackages().isEmpty()) {
            throw new IllegalStateException(
                    "COUPON_HUMAN_CHECK_VERIFY_URL is set, so COUPON_HUMAN_CHECK_ALLOWED_HOSTNAMES"
                            + " (the sites) or COUPON_HUMAN_CHECK_ALLOWED_APP_PACKAGES (the Android apps) must be set too:"
                            + " without them a token made on any site that uses the same service would be accepted.");
        }
    }

    /** The service's verdict on the member's token; {@code remoteIp} is the member's address, or null if unknown. */
    Mono<Verdict> verify(String token, String remoteIp) {
        if (properties.verifyUrl().isBlank()) {
            return Mono.just(Verdict.UNANSWERED);
        }
        var form = new LinkedMultiValueMap<String, String>();
        form.add("secret", properties.verifySecret());
        form.add("response", token);
        if (remoteIp != null) {
            form.add("remoteip", remoteIp);
        }
        Timer.Sample started = Timer.start();
        return client.post()
                .uri(properties.verifyUrl())
                .contentType(MediaType.APPLICATION_FORM_URLENCODED)
                .accept(MediaType.APPLICATION_JSON)
                .body(BodyInserters.fromFormData(form))
                .retrieve()
                .bodyToMono(Map.class)
                .timeout(properties.verifyTimeout().multipliedBy(2))
                .map(this::judge)
                .onErrorResume(error -> {
                    log.warn("the siteverify service did not answer: {}", error.toString());
                    return Mono.just(Verdict.UNANSWERED);
                })
                .doFinally(signal -> started.stop(latency));
    }

    private Verdict judge(Map<?, ?> answer) {
        SiteverifyAnswer.Check failed = SiteverifyAnswer.failed(answer, properties, clock.instant());
        if (failed == null) {
            return Verdict.ACCEPTED;
        }
        refusals.get(failed).increment();
        return new Verdict("X", failed);
    }
}
