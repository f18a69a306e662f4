package com.flashcoupon.contract;

/**
 * A request admitted by Redis and published by the drainer.
 *
 * @param couponId the coupon event
 * @param memberId the member, the JWT {@code sub}
 * @param sequence the admission sequence of this coupon, from 1; issuance follows it
 * @param publishedAt epoch milliseconds when the drainer published it (Redis keeps no per-request admission time;
 *     {@code sequence} carries the order)
 */
public record IssueRequested(long couponId, String memberId, long sequence, long publishedAt) {

    /** Stable across re-publishing: one member has at most one request per coupon. */
    public String requestId() {
        return couponId + ":" + memberId;
    }
}
