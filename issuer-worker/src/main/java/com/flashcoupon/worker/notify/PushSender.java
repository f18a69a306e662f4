package com.flashcoupon.worker.notify;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the provider until the push is delivered, dropped or rejected, pausing between retryable answers: doubling
 * back-off, or the provider's {@code Retry-After} when it is longer (capped). After the last attempt, or when one more
 * pause and call could overrun the push's time budget (every call counted at its whole request timeout), the retryable
 * answer is returned as it is; the caller gives its claim back and hands the record back to Kafka. The budget is below
 * the claim's time-out, so no other notifier takes the claim over while this one may still send.
 */
class PushSender {

    private static final Logger log = LoggerFactory.getLogger(PushSender.class);

    private final PushProvider provider;
    private final NotifyProperties.Retry retry;
    private final Duration requestTimeout;
    private final Duration budget;
    private final Sleeper sleeper;

    PushSender(
            PushProvider provider,
            NotifyProperties.Retry retry,
            Duration requestTimeout,
            Duration budget,
            Sleeper sleeper) {
        this.provider = provider;
        this.retry = retry;
        this.requestTimeout = requestTimeout;
        this.budget = budget;
        this.sleeper = sleeper;
    }

    Delivery send(Push push) throws InterruptedException {
        Duration backoff = retry.initialBackoff();
        Duration spent = Duration.ZERO;
        for (int attempt = 1; ; attempt++) {
            Delivery delivery = provider.send(push);
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
