package com.flashcoupon.worker.issue;

import com.flashcoupon.contract.FailureReason;
import com.flashcoupon.contract.IssueRequested;
import java.util.List;
import org.apache.commons.lang3.exception.ExceptionUtils;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.listener.ConsumerAwareRecordRecoverer;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;

/**
 * What happens to a record the error handler gave up on. A readable one (coupon id and member id usable) first
 * becomes a FAILED {@code UNPROCESSABLE} decision, so the member who was told "accepted" hears the end of it
 * (docs/architecture.md invariant 3): a failure row and the coupon's dead-lettered and failed counters (when the coupon exists),
 * the Redis status and a result event. Then the record goes to the dead-letter topic.
 *
 * <p>A wrapper rather than a listener on the dead-letter topic: it runs on the consumer thread before the poison
 * record's offset is committed, so a failure to record (MySQL down) throws, the record is retried and recovered again;
 * a second consumer group on the DLT would need its own retries and could lag or lose the outcome. Every step is
 * idempotent (INSERT IGNORE, HSETNX, one event id), so a retried recovery repeats nothing but the events.
 *
 * <p>A forged record ({@link ForgedRecordException}: its signature is missing or does not hold) only goes to the
 * dead-letter topic, counted in {@code coupon.worker.forged}: no failure row, counter, status or event, since the
 * member it names asked for nothing.
 */
class UnprocessableRecoverer implements ConsumerAwareRecordRecoverer {

    private static final Logger log = LoggerFactory.getLogger(UnprocessableRecoverer.class);

    private final DeadLetterPublishingRecoverer deadLetters;
    private final CouponIssuer issuer;
    private final ResultStore store;
    private final ResultPublisher publisher;
    private final IssueMetrics metrics;

    UnprocessableRecoverer(
            DeadLetterPublishingRecoverer deadLetters,
            CouponIssuer issuer,
            ResultStore store,
            ResultPublisher publisher,
            IssueMetrics metrics) {
        this.deadLetters = deadLetters;
        this.issuer = issuer;
        this.store = store;
        this.publisher = publisher;
        this.metrics = metrics;
    }

    @Override
    public void accept(ConsumerRecord<?, ?> record, @Nullable Consumer<?, ?> consumer, @Nullable Exception exception) {
        if (ForgedRecordException.in(exception)) {
            // not the drainer's: nothing is written, and nobody is told anything (the member it names asked nothing)
            deadLetters.accept(record, consumer, exception);
            metrics.deadLettered();
            metrics.forged();
            log.warn(
                    "Dead-lettered forged record {}-{}@{} (key {}), nothing written: {}",
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    record.key(),
                    rootMessage(exception));
            return;
        }
        if (record.value() instanceof IssueRequested request && RequestRules.readable(request)) {
            var written = issuer.failUnprocessable(request);
            Decision decision = written.orElseGet(() -> Decision.failed(
                    request.memberId(), FailureReason.UNPROCESSABLE, System.currentTimeMillis(), request.sequence()));
            if (written.isPresent()) {
                store.record(request.couponId(), List.of(decision));
            }
            // no row, no event: nothing goes to Redis, whose keys for an id MySQL does not list no pass would remove
            publisher.publish(List.of(decision.toResult(request)));
        }
        deadLetters.accept(record, consumer, exception);
        metrics.deadLettered();
        log.warn(
                "Dead-lettered {}-{}@{} (key {}): {}",
                record.topic(),
                record.partition(),
                record.offset(),
                record.key(),
                exception == null ? "no exception" : rootMessage(exception));
    }

    private static String rootMessage(Throwable failure) {
        return ExceptionUtils.getRootCause(failure).toString();
    }
}
