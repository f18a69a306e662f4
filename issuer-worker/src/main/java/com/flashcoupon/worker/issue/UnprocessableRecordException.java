package com.flashcoupon.worker.issue;

/** Why a readable record can never be written: invalid fields or an unknown coupon. */
class UnprocessableRecordException extends RuntimeException {

    UnprocessableRecordException(String message) {
        super(message);
    }

    UnprocessableRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
