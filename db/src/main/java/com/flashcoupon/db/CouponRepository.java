package com.flashcoupon.db;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;

/**
 * The {@code coupon} table, for both apps: the api creates and changes events, the worker moves the counters. Every
 * counter update is a single guarded statement, never read-then-write.
 */
public class CouponRepository {

    private static final String COLUMNS = "id, name, total_quantity, open_at, close_at, issue_rate_per_second,"
            + " valid_days, status, issued_count, failed_count, dead_lettered_count, notified_count,"
            + " published_count, created_at, version, settled_at, retired_at, admitted_count, rejected_sold_out_count,"
            + " admitted_seen_count, unknown_count, queueing, queueing_window_seconds, announce_at, stock_shards";

    private static final RowMapper<Coupon> ROW = CouponRepository::map;

    /** Most events {@link #findWithRedisState} lists for the drainers and the retirer. */
    public static final int MAX_LIVE_EVENTS = 10_000;

    private final JdbcClient jdbc;

    public CouponRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    public long insert(NewCoupon coupon) {
        var keys = new GeneratedKeyHolder();
        jdbc.sql("INSERT INTO coupon (name, total_quantity, open_at, close_at, issue_rate_per_second, valid_days,"
                        + " queueing, queueing_window_seconds, announce_at, stock_shards)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                .params(
                        coupon.name(),
                        coupon.totalQuantity(),
                        timestamp(coupon.openAt()),
                        timestamp(coupon.closeAt()),
                        coupon.issueRatePerSecond(),
                        coupon.validDays(),
                        coupon.queueing().name(),
                        coupon.queueingWindowSeconds(),
                        timestamp(coupon.announceAt()),
                        coupon.stockShards())
                .update(keys, "id");
        return keys.getKeyAs(Number.class).longValue();
    }

    public Optional<Coupon> findById(long id) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM coupon WHERE id = ?")
                .param(id)
                .query(ROW)
                .optional();
    }

    /**
     * Whether the draw of a {@link Coupon.Queueing#RANDOMIZED_START} event is recorded ({@code coupon_draw.drawn_at}):
     * a Redis that lost the event must know the draw is made, not close its window again on an empty draw.
     */
    public boolean drawRecorded(long couponId) {
        return jdbc.sql("SELECT COUNT(*) FROM coupon_draw WHERE coupon_id = ? AND drawn_at IS NOT NULL")
                        .param(couponId)
                        .query(Long.class)
                        .single()
                > 0;
    }

    /**
     * How far the draw of a {@link Coupon.Queueing#RANDOMIZED_START} event went: 0 not recorded, 1 recorded ({@code
     * drawn_at}), 2 also written into Redis ({@code made_at}: every member it placed was queued).
     */
    public int drawStep(long couponId) {
        return jdbc.sql("SELECT CASE WHEN made_at IS NOT NULL THEN 2 WHEN drawn_at IS NOT NULL THEN 1 ELSE 0 END"
                        + " FROM coupon_draw WHERE coupon_id = ?")
                .param(couponId)
                .query(Integer.class)
                .optional()
                .orElse(0);
    }

    /** Newest first, at most {@code limit}. */
    public List<Coupon> findRecent(int limit) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM coupon ORDER BY id DESC LIMIT ?")
                .param(limit)
                .query(ROW)
                .list();
    }

    /** False when there is no such event or it is retired (a retired event's settings no longer change). */
    public boolean updateRate(long id, int issueRatePerSecond) {
        return jdbc.sql("UPDATE coupon SET issue_rate_per_second = ?, version = version + 1"
                                + " WHERE id = ? AND retired_at IS NULL")
                        .params(issueRatePerSecond, id)
                        .update()
                > 0;
    }

    /**
     * The event's stock shards (issue 35), only while it has not opened by the database's clock: false when there is
     * no such event, it is retired, or it opened (an open event's admission state already lives in its shards).
     */
    public boolean updateStockShards(long id, int stockShards) {
        return jdbc.sql("UPDATE coupon SET stock_shards = ?, version = version + 1"
                                + " WHERE id = ? AND retired_at IS NULL AND open_at > NOW(3)")
                        .params(stockShards, id)
                        .update()
                > 0;
    }

    /**
     * A new end of the window may reopen admission, so the event is no longer settled. False when there is no such
     * event or it is retired.
     */
    public boolean updateCloseAt(long id, Instant closeAt) {
        return jdbc.sql("UPDATE coupon SET close_at = ?, settled_at = NULL, version = version + 1"
                                + " WHERE id = ? AND retired_at IS NULL")
                        .params(timestamp(closeAt), id)
                        .update()
                > 0;
    }

    /**
     * Closes admission; {@code close_at} becomes {@code now} unless the window already ended earlier. False when there
     * is no such event or it is retired.
     */
    public boolean close(long id, Instant now) {
        return jdbc.sql("UPDATE coupon SET status = 'CLOSED', version = version + 1,"
                                + " close_at = CASE WHEN close_at IS NULL OR close_at > ? THEN ? ELSE close_at END"
                                + " WHERE id = ? AND retired_at IS NULL")
                        .params(timestamp(now), timestamp(now), id)
                        .update()
                > 0;
    }

    /**
     * Raises the published high-water mark and the admissions the drainer saw in Redis; never lowers them (batches of
     * two drainers may land out of order). The second is what a restore after a Redis loss compares with the first.
     */
    public void recordPublished(long id, long publishedCount, long admittedSeen) {
        jdbc.sql("UPDATE coupon SET published_count = GREATEST(published_count, ?),"
                        + " admitted_seen_count = GREATEST(admitted_seen_count, ?) WHERE id = ?")
                .params(publishedCount, admittedSeen, id)
                .update();
    }

    /**
     * Counts, when Redis lost the coupon, the admissions it had that were never handed to Kafka: the most the drainer
     * saw, less what MySQL knows was published (or decided, or placed by a recorded draw). They are added to
     * {@code unknown_count} and the seen figure comes down to what MySQL knows, so a restore run again (its first one
     * died) adds nothing twice. A retired event's figures are final: a restore that raced its retirement changes
     * nothing.
     *
     * @return the admissions found unknown now (0 when none, or when another caller counted them)
     */
    public long countUnknownAtRestore(long id) {
        Coupon coupon = findById(id).orElse(null);
        if (coupon == null) {
            return 0;
        }
        long published = Math.max(coupon.publishedCount(), (long) coupon.issuedCount() + coupon.failedCount());
        // a recorded draw names every member it placed, published or not: the restore puts them back, none is unknown
        long placedUpTo = jdbc.sql("SELECT COALESCE(MAX(first_sequence + placed - 1), 0) FROM coupon_draw"
                        + " WHERE coupon_id = ? AND drawn_at IS NOT NULL AND first_sequence IS NOT NULL")
                .param(id)
                .query(Long.class)
                .single();
        long known = Math.max(published, placedUpTo);
        long unknown = coupon.admittedSeenCount() - known;
        if (unknown <= 0) {
            return 0;
        }
        int counted = jdbc.sql("UPDATE coupon SET unknown_count = unknown_count + ?, admitted_seen_count = ?"
                        + " WHERE id = ? AND admitted_seen_count = ? AND retired_at IS NULL")
                .params(unknown, known, id, coupon.admittedSeenCount())
                .update();
        return counted == 1 ? unknown : 0;
    }

    /**
     * Events whose Redis state is still there (not retired, or retired but its keys not yet removed), newest first, at
     * most {@code limit}: what the drainers and the retirer look at. Bounded by retirement: an event leaves this list
     * for good. Newest first, so that events an operator never closes cannot keep a new sale from being drained.
     */
    public List<Long> findWithRedisState(int limit) {
        return jdbc.sql("SELECT id FROM coupon WHERE keys_removed_at IS NULL ORDER BY id DESC LIMIT ?")
                .param(limit)
                .query(Long.class)
                .list();
    }

    /** Records the moment the event settled, once, and only from the version the caller read. */
    public boolean markSettled(long id, long version, Instant now) {
        return jdbc.sql("UPDATE coupon SET settled_at = ? WHERE id = ? AND version = ? AND settled_at IS NULL")
                        .params(timestamp(now), id, version)
                        .update()
                == 1;
    }

    /**
     * Retires the event: from now on MySQL answers every question about it. Keeps the figures that only Redis counted.
     * Only from the version the caller read (a change of the settings since then wins) and only once: true for the
     * one caller that retired it (instances race for this; exactly one wins).
     */
    public boolean markRetired(long id, long version, Instant now, long admitted, long rejectedSoldOut) {
        return jdbc.sql("UPDATE coupon SET retired_at = ?, admitted_count = ?, rejected_sold_out_count = ?,"
                                + " version = version + 1"
                                + " WHERE id = ? AND version = ? AND retired_at IS NULL AND settled_at IS NOT NULL")
                        .params(timestamp(now), admitted, rejectedSoldOut, id, version)
                        .update()
                == 1;
    }

    /** The retired event's Redis keys are gone: it leaves {@link #findWithRedisState} for good. */
    public void markKeysRemoved(long id, Instant now) {
        jdbc.sql("UPDATE coupon SET keys_removed_at = ? WHERE id = ? AND retired_at IS NOT NULL")
                .params(timestamp(now), id)
                .update();
    }

    /**
     * Locks the coupon row for the rest of the transaction: issuers of one coupon take turns, so the stock check and
     * the wallet inserts see one consistent count.
     */
    public Optional<Coupon> lockForIssue(long id) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM coupon WHERE id = ? FOR UPDATE")
                .param(id)
                .query(ROW)
                .optional();
    }

    /** The guarded stock counter: adds {@code n} only while the total stays within the quantity. */
    public boolean addIssued(long id, int n) {
        return jdbc.sql("UPDATE coupon SET issued_count = issued_count + ?"
                                + " WHERE id = ? AND issued_count + ? <= total_quantity")
                        .params(n, id, n)
                        .update()
                == 1;
    }

    public void addFailed(long id, int n) {
        jdbc.sql("UPDATE coupon SET failed_count = failed_count + ? WHERE id = ?")
                .params(n, id)
                .update();
    }

    public void addDeadLettered(long id, int n) {
        jdbc.sql("UPDATE coupon SET dead_lettered_count = dead_lettered_count + ? WHERE id = ?")
                .params(n, id)
                .update();
    }

    public void addNotified(long id, int n) {
        jdbc.sql("UPDATE coupon SET notified_count = notified_count + ? WHERE id = ?")
                .params(n, id)
                .update();
    }

    private static Coupon map(ResultSet rs, int row) throws SQLException {
        return new Coupon(
                rs.getLong("id"),
                rs.getString("name"),
                rs.getInt("total_quantity"),
                instant(rs.getTimestamp("open_at")),
                instant(rs.getTimestamp("close_at")),
                rs.getInt("issue_rate_per_second"),
                rs.getInt("valid_days"),
                "CLOSED".equals(rs.getString("status")),
                rs.getInt("issued_count"),
                rs.getInt("failed_count"),
                rs.getInt("dead_lettered_count"),
                rs.getInt("notified_count"),
                rs.getInt("published_count"),
                instant(rs.getTimestamp("created_at")),
                rs.getLong("version"),
                instant(rs.getTimestamp("settled_at")),
                instant(rs.getTimestamp("retired_at")),
                rs.getObject("admitted_count", Integer.class),
                rs.getObject("rejected_sold_out_count", Long.class),
                rs.getInt("admitted_seen_count"),
                rs.getInt("unknown_count"),
                Coupon.Queueing.valueOf(rs.getString("queueing")),
                rs.getInt("queueing_window_seconds"),
                instant(rs.getTimestamp("announce_at")),
                rs.getInt("stock_shards"));
    }

    static Timestamp timestamp(Instant instant) {
        return instant == null ? null : Timestamp.from(instant);
    }

    static Instant instant(Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }
}
