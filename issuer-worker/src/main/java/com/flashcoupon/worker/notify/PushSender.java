package com.flashcoupon.worker.notify;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the provider until the push is delivered, dropped or rejected, pausing between retryable answers: doubling
 * back-off, or the provider's {@code Retry-After} when it is longer (capped). After the last attempt, or when one more
 * pause and call could overrun the push's time budget (every call counted at its whole request timeout), the retryable
 * answer is returned as it is; the caller gives its claim back and hands the record back to Kafka. The budget is below
 * the claim's time-out, so no other notifier takes the claim over while this one may still send.
 *
 * <p>That count holds because no attempt outlives its request timeout: each runs on a thread of its own and is given
 * up (interrupted, answered as retryable) when it has not ended by then, whatever it was waiting for. Before, an
 * attempt was only as short as the HTTP client's time-out, which ends with the answer's headers: an FCM access token
 * being refreshed (Google's own HTTP call) or an answer's body that kept coming could make a push outlive its claim,
 * which another notifier then took over and sent again (PushSenderTest). An attempt given up may still have reached the
 * provider: pushes are at least once.
 */
class PushSender {

    private static final Logger log = LoggerFactory.getLogger(PushSender.class);

    private final PushProvider provider;
    private final NotifyProperties.Retry retry;
    private final Duration requestTimeout;
    private final Duration budget;
    private final Sleeper sleeper;
    private final ExecutorService attempts;

    /**
     * @param attempts runs each provider call, so that the sender can stop waiting for it: a thread per task (virtual
     *     threads), as a call blocks on the network
     */
    PushSender(
            PushProvider provider,
            NotifyProperties.Retry retry,
            Duration requestTimeout,
            Duration budget,
            Sleeper sleeper,
            ExecutorService attempts) {
        this.provider = provider;
        this.retry = retry;
        this.requestTimeout = requestTimeout;
        this.budget = budget;
        this.sleeper = sleeper;
        this.attempts = attempts;
    }

    Delivery send(Push push) throws InterruptedException {
        Duration backoff = retry.initialBackoff();
        Duration spent = Duration.ZERO;
        for (int attempt = 1; ; attempt++) {
            Delivery delivery = attempt(push);
            spent = spent.plus(requestTimeout);
            if (delivery.kind() != Delivery.Kind.RETRY || attempt >= retry.maxAttempts()) {
                return delivery;
            }
            Duration pause = pause(backoff, delivery.retryAfter());
            if (spent.plus(pause).plus(requestTimeout).compareTo(budget) > 0) {
                log.debug(
                        "push {} answered {}; no time left for another attempt",
                        push.result().eventId(),
                        delivery);
                return delivery;
            }
            spent = spent.plus(pause);
            log.debug(
                    "push {} to a device answered {}; attempt {} of {} in {}",
                    push.result().eventId(),
                    delivery.detail(),
                    attempt + 1,
                    retry.maxAttempts(),
                    pause);
            sleeper.sleep(pause);
            backoff = min(backoff.multipliedBy(2), retry.maxBackoff());
        }
    }

    /** One provider call, given up after the request timeout. */
    Delivery attempt(Push push) throws InterruptedException {
        Future<Delivery> call = attempts.submit(() -> provider.send(push));
        try {
            return call.get(requestTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            call.cancel(true);
            return Delivery.retry(null, "no complete answer within " + requestTimeout);
        } catch (InterruptedException e) {
            call.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw new IllegalStateException("a push provider failed", e.getCause());
        }
    }

    Duration pause(Duration backoff, Duration retryAfter) {
        if (retryAfter == null) {
            return backoff;
        }
        Duration honoured = min(retryAfter, retry.maxRetryAfter());
        return honoured.compareTo(backoff) > 0 ? honoured : backoff;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** Thread.sleep, replaceable in tests. */
    interface Sleeper {
        void sleep(Duration pause) throws InterruptedException;
    }
}
