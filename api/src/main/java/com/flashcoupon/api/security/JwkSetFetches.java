package com.flashcoupon.api.security;

import java.time.Duration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The identity provider's JWK set, fetched at most once per interval, whatever the traffic.
 *
 * <p>Spring Security's reactive decoder keeps the JWK set it fetched and fetches it again whenever a token names a key
 * ({@code kid}) the set does not hold, which is how a new signing key of the identity provider is picked up. But it
 * has no cool-down: any client, without credentials, sending tokens with made-up {@code kid}s made the api fetch the
 * JWK set once per token, turning unauthenticated traffic into traffic at the identity provider, and holding each
 * request for the fetch.
 *
 * <p>The decoder's {@code webClient} hook is given a client that answers from the last fetch, Reactor's
 * {@link Mono#cache(java.util.function.Function, java.util.function.Function, java.util.function.Supplier, Scheduler)
 * cache}, for {@code interval} after it: one real fetch per interval at most, shared by every decode that asks
 * meanwhile; a failed fetch is also kept for the interval, so a provider that is down is not asked by every token.
 * A token signed with a key the set gained since the last fetch is refused until the next one, within the interval.
 *
 * <p>Not Nimbus' {@code JWKSourceBuilder}, which rate-limits the same way: its sources are blocking (a plain
 * {@code URLConnection}, and a lock other threads wait on during a fetch), so they would block the event loops or need
 * a thread hop on every decode.
 */
final class JwkSetFetches {

    /** The longest one fetch may take: past it, it counts as failed (kept for the interval like any failure). */
    static final Duration FETCH_TIMEOUT = Duration.ofSeconds(5);

    private JwkSetFetches() {}

    /** A client for the decoder that fetches {@code jwkSetUri} through {@code identityProvider} once per interval. */
    static WebClient client(WebClient identityProvider, String jwkSetUri, Duration interval, Scheduler clock) {
        Mono<String> jwkSet = identityProvider
                .get()
                .uri(jwkSetUri)
                .retrieve()
                .bodyToMono(String.class)
                .timeout(FETCH_TIMEOUT, clock)
                .cache(fetched -> interval, failed -> interval, () -> interval, clock);
        return WebClient.builder()
                .exchangeFunction(request -> jwkSet.map(json -> ClientResponse.create(HttpStatus.OK)
                        .header(HttpHeaders.CONTENT_TYPE, MediaType.APPLICATION_JSON_VALUE)
                        .body(json)
                        .build()))
                .build();
    }
}
