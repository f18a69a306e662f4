package com.flashcoupon.worker.issue;

import org.springframework.kafka.listener.BatchListenerFailedException;

/**
 * A record that can never be written (unreadable bytes, invalid fields, unknown coupon). Every record before it in
 * the batch was completely processed, so the error handler commits them, retries this one with the bounded back-off
 * and then dead-letters it.
 */
class PoisonRecordException extends BatchListenerFailedException {

    PoisonRecordException(String reason, Throwable cause, int index) {
        super(reason, cause, index);
    }
}
