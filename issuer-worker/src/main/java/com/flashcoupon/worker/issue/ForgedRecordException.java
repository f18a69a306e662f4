package com.flashcoupon.worker.issue;

import org.apache.commons.lang3.exception.ExceptionUtils;

/**
 * A requested record whose signature ({@link com.flashcoupon.contract.RecordSignature}) is missing or does not hold
 * under any accepted key: not published by the api's drainer, or changed since. It is dead-lettered at once, and
 * nothing is written for it: no wallet, no failure row, no Redis status, no result event (a forged record must not
 * be able to tell a real member anything either). The message never carries the signature or a key.
 */
class ForgedRecordException extends RuntimeException {

    ForgedRecordException(String message) {
        super(message);
    }

    /** Whether {@code failure} is, or was caused by, a forged record. */
    static boolean in(Throwable failure) {
        if (failure == null) {
            return false;
        }
        for (Throwable t : ExceptionUtils.getThrowableList(failure)) {
            if (t instanceof ForgedRecordException) {
                return true;
            }
        }
        return false;
    }
}
