package com.flashcoupon.worker.notify;

import com.flashcoupon.contract.IssueResult;

/** One push: one result to one device. */
record Push(IssueResult result, Device device) {

    String title() {
        return result.outcome() == IssueResult.Outcome.ISSUED ? "Your coupon was issued" : "No coupon this time";
    }

    String body() {
        return result.outcome() == IssueResult.Outcome.ISSUED
                ? "Coupon " + result.couponId() + " is in your wallet."
                : "Coupon " + result.couponId() + " could not be issued (" + result.failureReason() + ").";
    }
}
