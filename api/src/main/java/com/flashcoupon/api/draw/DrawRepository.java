package com.flashcoupon.api.draw;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * {@code coupon_draw} and {@code coupon_draw_entrant}: a RANDOMIZED_START event's seed, its commitment, and once the
 * draw is made, what it was made from and what it gave each entrant. The seed leaves this class only through {@link
 * #secretSeed} (for the draw job) and, once the draw is recorded, in the public {@link DrawRecord}.
 */
@Repository
public class DrawRepository {

    private static final String PUBLIC_COLUMNS = "coupon_id, commitment, draw_at, drawn_at, entrants, placed,"
            + " entrants_digest, first_sequence, CASE WHEN drawn_at IS NOT NULL THEN seed END AS revealed_seed,"
            + " frozen_at, frozen_entrants, frozen_root, made_at, function_version,"
            + " beacon_round, beacon_randomness, beacon_signature";

    /** Entrants per multi-row insert. */
    static final int PAGE = 5_000;

    private final JdbcClient jdbc;
    private final JdbcTemplate template;

    /** The draw function new events are made with (coupon.draw.function-version): 2 unless set otherwise. */
    private final int functionVersion;

    /** Seal the seeds at rest until the draw (COUPON_DRAW_SEED_KEY). */
    private final DrawKeys keys;

    DrawRepository(
            JdbcClient jdbc,
            JdbcTemplate template,
            DrawKeys keys,
            @org.springframework.beans.factory.annotation.Value("${coupon.draw.function-version:2}")
                    int functionVersion) {
        this.keys = keys;
        if (functionVersion != 1 && functionVersion != 2) {
            throw new IllegalArgumentException("coupon.draw.function-version is 1 or 2, not " + functionVersion);
        }
        this.jdbc = jdbc;
        this.template = template;
        this.functionVersion = functionVersion;
    }

    /**
     * A new event's draw: a secret seed from a cryptographically secure generator, its commitment, and with function 2
     * a pseudonym key from the same generator.
     */
    public void create(long couponId, Instant drawAt) {
        byte[] seed = DrawRules.newSeed();
        byte[] pseudonymKey = functionVersion == 2 ? DrawRules.newSeed() : null;
        jdbc.sql("INSERT INTO coupon_draw (coupon_id, sealed_seed, commitment, draw_at, function_version,"
                        + " pseudonym_key) VALUES (?, ?, ?, ?, ?, ?)")
                .params(
                        couponId,
                        keys.seal(seed),
                        DrawRules.commitment(seed),
                        Timestamp.from(drawAt),
                        functionVersion,
                        pseudonymKey)
                .update();
    }

    /** The event's pseudonym key (function 2), never published; empty for a draw made with function 1. */
    public Optional<byte[]> pseudonymKey(long couponId) {
        return jdbc.sql("SELECT pseudonym_key FROM coupon_draw WHERE coupon_id = ? AND pseudonym_key IS NOT NULL")
                .param(couponId)
                .query(byte[].class)
                .optional();
    }

    /** A member's row in a recorded draw: their pseudonym (function 2) and place (null: left out); empty: no entrant. */
    public Optional<Entry> entry(long couponId, String member) {
        return jdbc.sql("SELECT pseudonym, place FROM coupon_draw_entrant WHERE coupon_id = ? AND member_id = ?")
                .params(couponId, member)
                .query((rs, row) -> new Entry(rs.getString("pseudonym"), rs.getObject("place", Integer.class)))
                .optional();
    }

    /** A member's pseudonym and place in a recorded draw. */
    public record Entry(String pseudonym, Integer place) {}

    /**
     * Up to {@code limit} entrants of a recorded draw made with function 2 whose pseudonyms come after {@code after}
     * (ascending; '' for the first page), each with their place: nothing that names a member.
     */
    public List<Entry> pseudonymousEntrants(long couponId, String after, int limit) {
        return jdbc.sql("SELECT pseudonym, place FROM coupon_draw_entrant WHERE coupon_id = ? AND pseudonym > ?"
                        + " ORDER BY pseudonym LIMIT ?")
                .params(couponId, after, limit)
                .query((rs, row) -> new Entry(rs.getString("pseudonym"), rs.getObject("place", Integer.class)))
                .list();
    }

    /** The draw as anyone may see it: the seed only once the draw is recorded. */
    public Optional<DrawRecord> find(long couponId) {
        return jdbc.sql("SELECT " + PUBLIC_COLUMNS + " FROM coupon_draw WHERE coupon_id = ?")
                .param(couponId)
                .query(DrawRepository::map)
                .optional();
    }

    /** {@link #find} for many events at once (the admin list). */
    public Map<Long, DrawRecord> findAll(Collection<Long> couponIds) {
        Map<Long, DrawRecord> draws = new HashMap<>();
        if (couponIds.isEmpty()) {
            return draws;
        }
        jdbc.sql("SELECT " + PUBLIC_COLUMNS + " FROM coupon_draw WHERE coupon_id IN (:ids)")
                .param("ids", couponIds)
                .query(DrawRepository::map)
                .list()
                .forEach(draw -> draws.put(draw.couponId(), draw));
        return draws;
    }

    /**
     * Draws whose window ended by {@code now} and that are not made yet (not recorded, or recorded and not yet written
     * into Redis), of events not retired.
     */
    List<Long> due(Instant now, int limit) {
        return jdbc.sql("SELECT d.coupon_id FROM coupon_draw d JOIN coupon c ON c.id = d.coupon_id"
                        + " WHERE d.made_at IS NULL AND d.draw_at <= ? AND c.retired_at IS NULL"
                        + " ORDER BY d.draw_at LIMIT ?")
                .params(Timestamp.from(now), limit)
                .query(Long.class)
                .list();
    }

    /**
     * The seed, secret until the draw is recorded: for the draw job only, opened with the draw key. Empty for a draw
     * made without one.
     */
    Optional<byte[]> secretSeed(long couponId) {
        return jdbc.sql("SELECT seed, sealed_seed FROM coupon_draw WHERE coupon_id = ?"
                        + " AND (seed IS NOT NULL OR sealed_seed IS NOT NULL)")
                .param(couponId)
                .query((rs, row) -> {
                    byte[] sealed = rs.getBytes("sealed_seed");
                    return sealed != null ? keys.open(sealed) : rs.getBytes("seed");
                })
                .optional();
    }

    /**
     * Seals the plain seeds of draws not recorded yet (kept in plain text before seeds were sealed): once, when the api
     * starts. How many it sealed.
     */
    int sealPlainSeeds() {
        List<Long> plain = jdbc.sql("SELECT coupon_id FROM coupon_draw WHERE drawn_at IS NULL AND seed IS NOT NULL"
                        + " AND sealed_seed IS NULL")
                .query(Long.class)
                .list();
        int sealed = 0;
        for (long couponId : plain) {
            byte[] seed = jdbc.sql("SELECT seed FROM coupon_draw WHERE coupon_id = ?")
                    .param(couponId)
                    .query(byte[].class)
                    .single();
            sealed += jdbc.sql("UPDATE coupon_draw SET sealed_seed = ?, seed = NULL WHERE coupon_id = ?"
                            + " AND drawn_at IS NULL AND seed = ?")
                    .params(keys.seal(seed), couponId, seed)
                    .update();
        }
        return sealed;
    }

    /**
     * Freezes the entrant set (its count and root) unless it is frozen already: once only. True when this call froze
     * it.
     */
    boolean freeze(long couponId, Instant now, int entrants, String root) {
        return jdbc.sql("UPDATE coupon_draw SET frozen_at = ?, frozen_entrants = ?, frozen_root = ?"
                                + " WHERE coupon_id = ? AND frozen_at IS NULL")
                        .params(Timestamp.from(now), entrants, root, couponId)
                        .update()
                == 1;
    }

    /** How many entrant rows MySQL holds for the draw. */
    long entrantRows(long couponId) {
        return jdbc.sql("SELECT COUNT(*) FROM coupon_draw_entrant WHERE coupon_id = ?")
                .param(couponId)
                .query(Long.class)
                .single();
    }

    /** The members a recorded draw placed, place 1 first. */
    List<String> placedInOrder(long couponId) {
        return jdbc.sql("SELECT member_id FROM coupon_draw_entrant WHERE coupon_id = ? AND place IS NOT NULL"
                        + " ORDER BY place")
                .param(couponId)
                .query(String.class)
                .list();
    }

    /** The recorded draw is in Redis: members know their outcome. Once only. */
    void markMade(long couponId, Instant now) {
        jdbc.sql("UPDATE coupon_draw SET made_at = ? WHERE coupon_id = ? AND made_at IS NULL")
                .params(Timestamp.from(now), couponId)
                .update();
    }

    /**
     * Records one page of entrants with their places (null: left out). Idempotent: the draw is deterministic, so a
     * page recorded again (by an instance that took over) holds the same places.
     */
    void recordEntrants(long couponId, List<Entrant> page) {
        if (page.isEmpty()) {
            return;
        }
        StringBuilder sql = new StringBuilder(
                "INSERT IGNORE INTO coupon_draw_entrant (coupon_id, member_id, place, pseudonym) VALUES ");
        List<Object> params = new ArrayList<>(page.size() * 4);
        for (int i = 0; i < page.size(); i++) {
            sql.append(i == 0 ? "(?, ?, ?, ?)" : ", (?, ?, ?, ?)");
            params.add(couponId);
            params.add(page.get(i).member());
            params.add(page.get(i).place());
            params.add(page.get(i).pseudonym());
        }
        template.update(sql.toString(), params.toArray());
    }

    /**
     * The draw is recorded: every entrant's row is written, and from now on the seed is published. Once only; false
     * when it was recorded already.
     */
    boolean markDrawn(
            long couponId,
            Instant now,
            int entrants,
            int placed,
            String entrantsDigest,
            long firstSequence,
            byte[] seed,
            DrawBeacon.Round beacon) {
        // the seed is published from now on: kept in plain text beside its sealed copy; a beacon round mixed in makes
        // the draw one of function 3
        return jdbc.sql("UPDATE coupon_draw SET drawn_at = ?, entrants = ?, placed = ?, entrants_digest = ?,"
                                + " first_sequence = ?, seed = COALESCE(seed, ?), beacon_round = ?,"
                                + " beacon_randomness = ?, beacon_signature = ?,"
                                + " function_version = CASE WHEN ? IS NULL THEN function_version ELSE 3 END"
                                + " WHERE coupon_id = ? AND drawn_at IS NULL")
                        .params(
                                Timestamp.from(now),
                                entrants,
                                placed,
                                entrantsDigest,
                                firstSequence,
                                seed,
                                beacon == null ? null : beacon.round(),
                                beacon == null ? null : beacon.randomness(),
                                beacon == null ? null : beacon.signature(),
                                beacon == null ? null : beacon.round(),
                                couponId)
                        .update()
                == 1;
    }

    /**
     * Up to {@code limit} entrants of a recorded draw whose ids come after {@code after} in byte order (the digest's
     * order; '' for the first page), each with the place the draw gave them and what MySQL holds for them: their
     * wallet coupon (issued) or their failure (FAILED), if any.
     */
    public List<EntrantOutcome> entrants(long couponId, String after, int limit) {
        return jdbc.sql(
                        "SELECT e.member_id, e.place, e.pseudonym, w.id AS wallet_id, f.reason FROM coupon_draw_entrant e"
                                + " LEFT JOIN coupon_wallet w ON w.coupon_id = e.coupon_id AND w.member_id = e.member_id"
                                + " LEFT JOIN coupon_issue_failure f ON f.coupon_id = e.coupon_id AND f.member_id = e.member_id"
                                + " WHERE e.coupon_id = ? AND e.member_id > ? ORDER BY e.member_id LIMIT ?")
                .params(couponId, after, limit)
                .query((rs, row) -> new EntrantOutcome(
                        rs.getString("member_id"),
                        rs.getObject("place", Integer.class),
                        rs.getObject("wallet_id", Long.class),
                        rs.getString("reason"),
                        rs.getString("pseudonym")))
                .list();
    }

    /** One entrant, the place the draw gave them ({@code null}: left out) and their pseudonym (function 2). */
    record Entrant(String member, Integer place, String pseudonym) {}

    /** An entrant of a recorded draw, with their wallet coupon or failure when MySQL has one. */
    public record EntrantOutcome(
            String member, Integer place, Long walletCouponId, String failureReason, String pseudonym) {}

    private static DrawRecord map(ResultSet rs, int row) throws SQLException {
        byte[] seed = rs.getBytes("revealed_seed");
        Timestamp drawnAt = rs.getTimestamp("drawn_at");
        return new DrawRecord(
                rs.getLong("coupon_id"),
                rs.getString("commitment"),
                rs.getTimestamp("draw_at").toInstant(),
                drawnAt == null ? null : drawnAt.toInstant(),
                rs.getObject("entrants", Integer.class),
                rs.getObject("placed", Integer.class),
                rs.getString("entrants_digest"),
                rs.getObject("first_sequence", Long.class),
                seed == null ? null : DrawRules.hex(seed),
                instant(rs.getTimestamp("frozen_at")),
                rs.getObject("frozen_entrants", Integer.class),
                rs.getString("frozen_root"),
                instant(rs.getTimestamp("made_at")),
                rs.getInt("function_version"),
                rs.getObject("beacon_round", Long.class),
                rs.getString("beacon_randomness"),
                rs.getString("beacon_signature"));
    }

    private static Instant instant(Timestamp at) {
        return at == null ? null : at.toInstant();
    }
}
