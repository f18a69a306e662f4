package com.flashcoupon.api.overload;

import com.flashcoupon.api.config.ApiProperties;
import com.flashcoupon.api.ratelimit.InFlightLimits;
import com.flashcoupon.api.web.BodySizeLimitFilter;
import com.flashcoupon.api.web.ClientGone;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.HttpHandlerDecoratorFactory;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Flux;
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
 *
 * <p>A request that announces a body ({@code Content-Length} or chunked) has it read in full before it may take a
 * permit (at most 16 KiB, within {@code coupon.http.request-timeout}): a permit is held while the api works, never
 * while a client takes its time to send. Before, a few members sending headers and then nothing held every permit
 * and the instance answered 503 to everyone (SlowClientsTest). While its body arrives such a request holds a place of
 * its client address ({@link InFlightLimits#tryAcquireAddress}), so that one address cannot keep an unbounded number
 * of them waiting: over the cap it is answered 429 at once and its connection closed.
 */
@Component
class OverloadGuard implements HttpHandlerDecoratorFactory {

    static final double RTT_TOLERANCE = 2.0;
    static final String TOO_MANY_RETRY_AFTER = "1";
    static final int WINDOW_SAMPLES = 20;

    private final boolean enabled;
    private final SimpleLimiter<Void> limiter;
    private final byte[] refusal;
    private final String retryAfter;
    private final Counter accepted;
    private final Counter refused;
    private final InFlightLimits inFlight;
    private final byte[] tooLarge;
    private final byte[] tooMany;
    private final byte[] timedOut;
    private final AtomicInteger reading = new AtomicInteger();
    private final Counter bodiesNotArrived;

    OverloadGuard(ApiProperties properties, ProblemWriter problems, MeterRegistry meters, InFlightLimits inFlight) {
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
        this.inFlight = inFlight;
        this.tooLarge = problems.bytes(Problems.of(ErrorCode.PAYLOAD_TOO_LARGE, "The request body is over 16 KiB."));
        this.timedOut = problems.bytes(Problems.of(ErrorCode.REQUEST_TIMEOUT, ClientGone.DETAIL));
        this.tooMany = problems.bytes(Problems.of(
                ErrorCode.RATE_LIMITED,
                "Too many requests from your address are in progress at once; nothing was done. Try again in "
                        + TOO_MANY_RETRY_AFTER + " s."));
        Gauge.builder("coupon.overload.reading", reading, AtomicInteger::get)
                .description("Member requests whose body is still arriving: they hold no permit yet")
                .register(meters);
        this.bodiesNotArrived = Counter.builder("coupon.overload.bodies.not.arrived")
                .description("Member requests whose body did not arrive in time, or whose client went away first")
                .register(meters);
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
        return (request, response) -> {
            if (!limited(request.getPath().pathWithinApplication())) {
                return handler.handle(request, response);
            }
            return announcesBody(request) ? bodyFirst(request, response, handler) : guard(request, response, handler);
        };
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
        response.getHeaders().set(HttpHeaders.RETRY_AFTER, retryAfter);
        return answer(request, response, HttpStatus.SERVICE_UNAVAILABLE, refusal);
    }

    /**
     * Whether the request announces a body: a {@code Content-Length} above zero, or a chunked one. Two header look-ups,
     * the whole cost of this for a request without a body (an admission).
     */
    static boolean announcesBody(ServerHttpRequest request) {
        HttpHeaders headers = request.getHeaders();
        return headers.getContentLength() > 0 || headers.containsHeader(HttpHeaders.TRANSFER_ENCODING);
    }

    /**
     * Reads the body, holding a place of the client's address but no permit, then guards the request with the body
     * in hand. A declared length over the limit is left to {@link BodySizeLimitFilter}, which answers 413 without
     * reading anything; a chunked body that passes it is answered 413 here. A body that does not arrive in time (or a
     * client that went away) is answered 408 with the connection closed, which Reactor Netty does anyway: nothing was
     * done.
     */
    private Mono<Void> bodyFirst(ServerHttpRequest request, ServerHttpResponse response, HttpHandler handler) {
        if (request.getHeaders().getContentLength() > BodySizeLimitFilter.MAX_BODY_BYTES) {
            return guard(request, response, handler);
        }
        return Mono.defer(() -> {
            InFlightLimits.Slot place = inFlight.tryAcquireAddress(request);
            if (place == null) {
                response.getHeaders().set(HttpHeaders.RETRY_AFTER, TOO_MANY_RETRY_AFTER);
                return closing(request, response, HttpStatus.TOO_MANY_REQUESTS, tooMany);
            }
            reading.incrementAndGet();
            return DataBufferUtils.join(request.getBody(), (int) BodySizeLimitFilter.MAX_BODY_BYTES)
                    .map(OverloadGuard::copy)
                    .defaultIfEmpty(NO_BYTES)
                    .doFinally(signal -> {
                        reading.decrementAndGet();
                        place.release();
                    })
                    .onErrorResume(error -> notRead(error, request, response))
                    .flatMap(body -> guard(withBody(request, body), response, handler));
        });
    }

    private static final byte[] NO_BYTES = new byte[0];

    private Mono<byte[]> notRead(Throwable error, ServerHttpRequest request, ServerHttpResponse response) {
        if (error instanceof DataBufferLimitException) {
            return closing(request, response, HttpStatus.CONTENT_TOO_LARGE, tooLarge)
                    .then(Mono.empty());
        }
        if (ClientGone.is(error)) {
            // never the empty 200 the server would send for a handler that completes without answering
            bodiesNotArrived.increment();
            return closing(request, response, HttpStatus.REQUEST_TIMEOUT, timedOut)
                    .onErrorResume(gone -> Mono.empty())
                    .then(Mono.empty());
        }
        return Mono.error(error);
    }

    /** The body's bytes, out of the server's pooled buffer (given back here): at most 16 KiB, copied once. */
    private static byte[] copy(DataBuffer joined) {
        try {
            byte[] bytes = new byte[joined.readableByteCount()];
            joined.read(bytes);
            return bytes;
        } finally {
            DataBufferUtils.release(joined);
        }
    }

    /** The request as the handler sees it: the same, with its body already read. */
    static ServerHttpRequest withBody(ServerHttpRequest request, byte[] body) {
        return new ServerHttpRequestDecorator(request) {
            @Override
            public Flux<DataBuffer> getBody() {
                return body.length == 0
                        ? Flux.empty()
                        : Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body)));
            }
        };
    }

    /** An answer sent before the body was read: the connection is closed after it rather than read to its end. */
    private Mono<Void> closing(ServerHttpRequest request, ServerHttpResponse response, HttpStatus status, byte[] body) {
        response.getHeaders().set(HttpHeaders.CONNECTION, "close");
        return answer(request, response, status, body);
    }

    private static Mono<Void> answer(
            ServerHttpRequest request, ServerHttpResponse response, HttpStatus status, byte[] body) {
        response.setStatusCode(status);
        HttpHeaders headers = response.getHeaders();
        headers.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        headers.setContentLength(body.length);
        headers.set(
                RequestIdFilter.HEADER,
                RequestIdFilter.idOf(request.getHeaders().getFirst(RequestIdFilter.HEADER)));
        return response.writeWith(
                Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
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
