package com.flashcoupon.worker.notify;

/** A push could not be finished now (provider down, or being sent elsewhere): the record is retried with back-off. */
class PushPendingException extends RuntimeException {

    PushPendingException(String message) {
        super(message);
    }
}
