package com.flashcoupon.contract;

/** Why an accepted request ended FAILED (docs/architecture.md invariant 3). */
public enum FailureReason {
    /** The database's stock guard refused it: the coupon had no stock left when the worker wrote it. */
    SOLD_OUT,
    /** The record could never be processed and went to the dead-letter topic. */
    UNPROCESSABLE
}
