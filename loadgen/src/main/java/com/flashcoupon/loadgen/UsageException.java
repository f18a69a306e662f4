package com.flashcoupon.loadgen;

/** The command line asked for something that cannot be done; the message says what, and the program exits with 2. */
public final class UsageException extends RuntimeException {

    public UsageException(String message) {
        super(message);
    }
}
