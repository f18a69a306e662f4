package com.flashcoupon.worker.notify;

import com.flashcoupon.contract.IssueResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts and logs each result record sent to {@code coupon.issue.result.notify-dlt}: its pushes could not all be
 * finished after every redelivery, or it could not be read at all. It stays in that topic for the operator
 * (docs/operations.md, "Pushes are dead-lettered"); nothing consumes it. So no push is lost with a log line only. The
 * member's result itself is not affected: it is in MySQL, in the status and on the live stream.
 */
class NotifyDeadLetters {

    private static final Logger log = LoggerFactory.getLogger(NotifyDeadLetters.class);

    private final Counter deadLettered;

    NotifyDeadLetters(MeterRegistry meters) {
        this.deadLettered = Counter.builder("coupon.notify.dead.lettered")
                .description("Result records whose pushes were given up after every redelivery, or unreadable")
                .register(meters);
    }

    void record(ConsumerRecord<?, ?> record, Exception why) {
        deadLettered.increment();
        String what = record.value() instanceof IssueResult result
                ? "result " + result.eventId()
                : "an unreadable result record (key " + record.key() + ")";
        log.warn(
                "gave up pushing {} from {}-{}@{}; it is in the notifier's dead-letter topic: {}",
                what,
                record.topic(),
                record.partition(),
                record.offset(),
                rootMessage(why));
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.toString();
    }
}
