package com.flashcoupon.worker.issue;

import org.springframework.kafka.listener.BatchListenerFailedException;

/**
 * The batch could not be written for a reason that is not the records' fault (MySQL, Redis or Kafka unreachable, a
 * timeout, a bug): nothing is committed, the whole batch is redelivered from its first record with the capped
 * exponential back-off, for as long as it takes, and nothing goes to the dead-letter topic.
 *
 * <p>A {@link BatchListenerFailedException} at index 0 rather than a plain exception: a plain one would go to the
 * error handler's batch fallback, which retries in a loop of its own and would also swallow the poison record
 * exception (index > 0) thrown by a retry once the outage is over, retrying it forever. A distinct class also resets
 * the retry state when a record turns from "retry" to "poison" (the tracker compares exception classes).
 */
class RetryBatchException extends BatchListenerFailedException {

    RetryBatchException(int batchSize, RuntimeException cause) {
        super("writing a batch of " + batchSize + " records failed; retrying it whole", cause, 0);
    }
}
