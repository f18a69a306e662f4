package com.flashcoupon.db;

import java.time.Instant;

/**
 * One row of {@code coupon}: the event as the system of record holds it.
 *
 * @param version raised by every change of the settings (and by retirement); the Redis mirror refuses older ones
 * @param settledAt when admission was over and every admitted member had a result; null before
 * @param retiredAt when MySQL took over every answer about the event and its Redis state went; null before
 * @param admittedCount admissions in all, kept at retirement (Redis counted them until then); null before
 * @param rejectedSoldOutCount sold-out refusals in all, kept at retirement; null before
 * @param admittedSeenCount the most admissions the drainer saw in Redis (base + queue size)
 * @param unknownCount admissions Redis lost before they were published, counted by restores from MySQL
 * @param queueing how members get their places ({@link Queueing})
 * @param queueingWindowSeconds with {@link Queueing#RANDOMIZED_START}, the window after {@code openAt} whose members
 *     are placed by a draw; 0 for FIFO
 * @param announceAt from when members may see the event; null for an event created before it was kept (visible from its
 *     creation)
 * @param stockShards the Redis hash slots the event's admission state is spread over (1: one slot, {@code {cpn:ID}})
 */
public record Coupon(
        long id,
        String name,
        int totalQuantity,
        Instant openAt,
        Instant closeAt,
        int issueRatePerSecond,
        int validDays,
        boolean closedByOperator,
        int issuedCount,
        int failedCount,
        int deadLetteredCount,
        int notifiedCount,
        int publishedCount,
        Instant createdAt,
        long version,
        Instant settledAt,
        Instant retiredAt,
        Integer admittedCount,
        Long rejectedSoldOutCount,
        int admittedSeenCount,
        int unknownCount,
        Queueing queueing,
        int queueingWindowSeconds,
        Instant announceAt,
        int stockShards) {

    /** How an event orders its members (docs/architecture.md, "Queueing modes"). */
    public enum Queueing {
        /** first come, first served, from the opening second */
        FIFO,
        /**
         * the members who ask within the window after {@code openAt} are placed in a random order drawn once when
         * the window ends; first come after it
         */
        RANDOMIZED_START
    }

    /** When the draw of a {@link Queueing#RANDOMIZED_START} event takes place; null for FIFO. */
    public Instant drawAt() {
        return queueing == Queueing.RANDOMIZED_START ? openAt.plusSeconds(queueingWindowSeconds) : null;
    }

    /** Whether members may see the event at {@code now}. */
    public boolean announced(Instant now) {
        return announceAt == null || !now.isBefore(announceAt);
    }

    public boolean retired() {
        return retiredAt != null;
    }
}
