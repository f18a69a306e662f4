package com.flashcoupon.api.gate;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.channel.ChannelOption;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
 * a form POST of {@code secret}, {@code response} and {@code remoteip}, answered by JSON whose {@code success} tells.
 * Fails closed: no answer within the time-out, an error, or no URL configured reads {@code U} (503 to the member),
 * never a pass.
 */
@Component
class SiteVerifier {

    private static final Logger log = LoggerFactory.getLogger(SiteVerifier.class);

    private final WebClient client;
    private final HumanCheckProperties properties;
    private final Timer latency;

    SiteVerifier(HumanCheckProperties properties, MeterRegistry meters) {
        // the time-out is the connection's own (a read time-out on its event loop), so that a service that never
        // answers
        // is given up without a cancel from another thread; the Mono's timeout below is only a backstop
        HttpClient http = HttpClient.create()
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int)
                        properties.verifyTimeout().toMillis())
                .responseTimeout(properties.verifyTimeout());
        this.client = WebClient.builder()
                .clientConnector(new ReactorClientHttpConnector(http))
                .build();
        this.properties = properties;
        this.latency = Timer.builder("coupon.human.check.siteverify")
                .description("Time the siteverify service took to answer one admission's token")
                .register(meters);
    }

    /** gate.lua's reading: {@code S} accepted, {@code X} refused, {@code U} no answer. */
    Mono<String> verify(String token, String remoteIp) {
        if (properties.verifyUrl().isBlank()) {
            return Mono.just("U");
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
                .map(answer -> Boolean.TRUE.equals(answer.get("success")) ? "S" : "X")
                .onErrorResume(error -> {
                    log.warn("the siteverify service did not answer: {}", error.toString());
                    return Mono.just("U");
                })
                .doFinally(signal -> started.stop(latency));
    }
}
