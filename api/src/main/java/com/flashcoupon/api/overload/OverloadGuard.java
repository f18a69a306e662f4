package com.flashcoupon.api.overload;

import com.flashcoupon.api.config.ApiProperties;
import com.flashcoupon.api.web.ErrorCode;
import com.flashcoupon.api.web.MemberPaths;
import com.flashcoupon.api.web.ProblemWriter;
import com.flashcoupon.api.web.Problems;
import com.flashcoupon.api.web.RequestIdFilter;
import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.WindowedLimit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.HttpHandlerDecoratorFactory;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * Adaptive admission control (issue 11): at most {@code limit} member requests in work at once on this instance, the
 * limit adapted to their measured latency by Netflix's Gradient2 algorithm; a request over it is answered at once with
 * 503 {@code UNAVAILABLE} and {@code Retry-After}, having done nothing.
 *
 * <p>Why here, around the whole HTTP handler rather than as a {@code WebFilter}: a refusal must cost as little as
 * possible, because at twice the api's capacity half of the requests are refused and their cost is taken from the
 * admissions. Before any {@code WebFilter} runs, WebFlux has built the exchange and started the
 * {@code http.server.requests} observation, and a filter after Spring Security's runs after the token was parsed and
 * verified. Here a refusal is a fixed 503 written straight to the response, and the latency measured is that of the
 * whole exchange (filters, security, controller, the response written).
 *
 * <p>What is limited: the member endpoints ({@code /api/**}), the ones a crowd calls. Not limited: health (a busy
 * instance that failed its probes would be restarted or taken out, which makes the overload worse), the admin
 * endpoints and the console (an operator must be able to close or slow an event in the middle of a crowd), metrics and
 * the OpenAPI document; and the live status streams, which hold their exchange for minutes: their duration says
 * nothing about load, and a few hundred open streams would hold every permit.
 *
 * <p>Each permit is released exactly once, on completion, error or cancel (a client that went away): completion is a
 * latency sample, an error or a cancel is not (their timing says nothing about how long the work takes).
 */
@Component
class OverloadGuard implements HttpHandlerDecoratorFactory {

    static final double RTT_TOLERANCE = 2.0;
    static final int WINDOW_SAMPLES = 20;

    private final boolean enabled;
    private final SimpleLimiter<Void> limiter;
    private final byte[] refusal;
    private final String retryAfter;
    private final Counter accepted;
    private final Counter refused;

    OverloadGuard(ApiProperties properties, ProblemWriter problems, MeterRegistry meters) {
        ApiProperties.Overload settings = properties.overload();
        this.enabled = settings.enabled();
        this.limiter = SimpleLimiter.newBuilder()
                .named("member-api")
                .limit(limit(settings))
                .build();
        this.retryAfter = Long.toString(settings.retryAfterSeconds());
        this.refusal = problems.bytes(Problems.of(
                ErrorCode.UNAVAILABLE,
                "The service is over capacity; nothing was done. Try again in " + retryAfter + " s."));
        this.accepted = Counter.builder("coupon.overload.requests")
                .description("Member requests the overload guard let through")
                .tag("outcome", "accepted")
                .register(meters);
        this.refused = Counter.builder("coupon.overload.requests")
                .description("Member requests the overload guard refused with 503, having done nothing")
                .tag("outcome", "refused")
                .register(meters);
        Gauge.builder("coupon.overload.limit", limiter, SimpleLimiter::getLimit)
                .description("Member requests this instance works on at once at most, adapted to their latency")
                .register(meters);
        Gauge.builder("coupon.overload.in.flight", limiter, SimpleLimiter::getInflight)
                .description("Member requests this instance is working on now (holding a permit)")
                .register(meters);
    }

    /**
     * Gradient2 compares the recent latency with its long-run average: the limit grows while the recent latency stays
     * under {@value #RTT_TOLERANCE} times the average and shrinks (by at most a tenth at a time) when it rises above.
     * Fed one sample per request, one slow exchange among fast ones would shrink it, and on a busy machine latencies
     * are noisy: the limit then sank to its minimum and admissions with it (bin/bench). So it is fed the average of a
     * window of at least {@value #WINDOW_SAMPLES} exchanges and 100 ms (at most 1 s), about ten updates a second.
     */
    static Limit limit(ApiProperties.Overload settings) {
        return WindowedLimit.newBuilder()
                .minWindowTime(100, TimeUnit.MILLISECONDS)
                .maxWindowTime(1, TimeUnit.SECONDS)
                .windowSize(WINDOW_SAMPLES)
                .build(Gradient2Limit.newBuilder()
                        .initialLimit(settings.initialLimit())
                        .minLimit(settings.minLimit())
                        .maxConcurrency(settings.maxLimit())
                        .rttTolerance(RTT_TOLERANCE)
                        .build());
    }

    @Override
    public HttpHandler apply(HttpHandler handler) {
        if (!enabled) {
            return handler;
        }
        return (request, response) -> limited(request.getPath().pathWithinApplication())
                ? guard(request, response, handler)
                : handler.handle(request, response);
    }

    /** What the console and the admin API show. */
    OverloadView view() {
        return new OverloadView(
                enabled, limiter.getLimit(), limiter.getInflight(), (long) accepted.count(), (long) refused.count());
    }

    static boolean limited(PathContainer path) {
        return MemberPaths.isMemberApi(path) && !MemberPaths.isEventStream(path);
    }

    private Mono<Void> guard(ServerHttpRequest request, ServerHttpResponse response, HttpHandler handler) {
        return Mono.defer(() -> {
            Optional<Limiter.Listener> listener = limiter.acquire(null);
            if (listener.isEmpty()) {
                refused.increment();
                return refuse(request, response);
            }
            accepted.increment();
            Permit permit = new Permit(listener.get());
            // deferred, so that a handler that throws instead of returning an error still releases its permit
            return Mono.defer(() -> handler.handle(request, response)).doFinally(permit::release);
        });
    }

    private Mono<Void> refuse(ServerHttpRequest request, ServerHttpResponse response) {
        response.setStatusCode(HttpStatus.SERVICE_UNAVAILABLE);
        HttpHeaders headers = response.getHeaders();
        headers.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        headers.setContentLength(refusal.length);
        headers.set(HttpHeaders.RETRY_AFTER, retryAfter);
        headers.set(
                RequestIdFilter.HEADER,
                RequestIdFilter.idOf(request.getHeaders().getFirst(RequestIdFilter.HEADER)));
        return response.writeWith(
                Mono.fromSupplier(() -> response.bufferFactory().wrap(refusal)));
    }

    /** One acquired permit; whichever signal comes first releases it, any later one does nothing. */
    static final class Permit {

        private final AtomicReference<Limiter.Listener> listener;

        Permit(Limiter.Listener listener) {
            this.listener = new AtomicReference<>(listener);
        }

        void release(SignalType signal) {
            Limiter.Listener held = listener.getAndSet(null);
            if (held == null) {
                return;
            }
            if (signal == SignalType.ON_COMPLETE) {
                held.onSuccess();
            } else {
                held.onIgnore();
            }
        }
    }
}
