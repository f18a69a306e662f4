package com.flashcoupon.api.gatestate;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code coupon_gate} and {@code coupon_eligible_member} (V10): the system of record of an event's gate, from which
 * Redis is loaded (after an upload, a change, or a Redis loss). Every change raises the coupon's version, so the
 * mirror writes the new settings over whatever snapshot Redis held.
 */
@Repository
public class GateRepository {

    private static final TypeReference<Map<String, List<String>>> CLAIMS = new TypeReference<>() {};
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final JdbcClient jdbc;

    GateRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** An event's gate with its list's generation and size; empty when the event has none. */
    public record Stored(GateSettings settings, long listGeneration, long listCount) {}

    private static final String STORED =
            "list_required, claims, mode, human_check, difficulty_bits, list_generation, list_count";

    private static final String COUNTS =
            "refused_list, refused_claims, refused_proof, would_refuse_list, would_refuse_claims";

    public Optional<Stored> find(long couponId) {
        return jdbc.sql("SELECT " + STORED + " FROM coupon_gate WHERE coupon_id = ?")
                .param(couponId)
                .query((rs, row) -> stored(rs))
                .optional();
    }

    private static Stored stored(ResultSet rs) throws SQLException {
        return new Stored(
                new GateSettings(
                        rs.getBoolean("list_required"),
                        rs.getString("claims") == null ? Map.of() : JSON.readValue(rs.getString("claims"), CLAIMS),
                        GateSettings.Mode.valueOf(rs.getString("mode")),
                        rs.getString("human_check") == null
                                ? null
                                : GateSettings.HumanCheck.valueOf(rs.getString("human_check")),
                        rs.getInt("difficulty_bits")),
                rs.getLong("list_generation"),
                rs.getLong("list_count"));
    }

    private static GateCounts.Counts counts(ResultSet rs, boolean sketches) throws SQLException {
        return new GateCounts.Counts(
                rs.getLong("refused_list"),
                rs.getLong("refused_claims"),
                rs.getLong("refused_proof"),
                rs.getLong("would_refuse_list"),
                rs.getLong("would_refuse_claims"),
                sketches ? rs.getBytes("would_refuse_list_sketch") : null,
                sketches ? rs.getBytes("would_refuse_claims_sketch") : null);
    }

    /**
     * What the mirror needs of an event's gate (empty when it has none): its settings and list, whether the event is
     * retired (then none of it goes into Redis again), and the counts saved (with their sketches, to put back).
     */
    Optional<ForMirror> findForMirror(long couponId) {
        return jdbc.sql("SELECT " + STORED + ", " + COUNTS + ", would_refuse_list_sketch, would_refuse_claims_sketch,"
                        + " c.retired_at IS NOT NULL AS retired"
                        + " FROM coupon_gate g JOIN coupon c ON c.id = g.coupon_id WHERE g.coupon_id = ?")
                .param(couponId)
                .query((rs, row) -> new ForMirror(stored(rs), rs.getBoolean("retired"), counts(rs, true)))
                .optional();
    }

    record ForMirror(Stored stored, boolean retired, GateCounts.Counts saved) {}

    /** The counts saved of an event's gate (without their sketches); zeros when it has none. */
    public GateCounts.Counts savedCounts(long couponId) {
        return jdbc.sql("SELECT " + COUNTS + " FROM coupon_gate WHERE coupon_id = ?")
                .param(couponId)
                .query((rs, row) -> counts(rs, false))
                .optional()
                .orElse(GateCounts.Counts.NONE);
    }

    /**
     * Saves the counts Redis holds, keeping the higher of each (a Redis that lost them never lowers a figure). A
     * sketch replaces the saved one only when its count is not lower: it is then the same members or more. MySQL
     * assigns left to right, so each sketch is compared before its count is raised.
     */
    void saveCounts(long couponId, GateCounts.Counts counts) {
        jdbc.sql("UPDATE coupon_gate SET refused_list = GREATEST(refused_list, ?),"
                        + " refused_claims = GREATEST(refused_claims, ?), refused_proof = GREATEST(refused_proof, ?),"
                        + " would_refuse_list_sketch = IF(? >= would_refuse_list, ?, would_refuse_list_sketch),"
                        + " would_refuse_list = GREATEST(would_refuse_list, ?),"
                        + " would_refuse_claims_sketch = IF(? >= would_refuse_claims, ?, would_refuse_claims_sketch),"
                        + " would_refuse_claims = GREATEST(would_refuse_claims, ?) WHERE coupon_id = ?")
                .params(
                        counts.refusedList(),
                        counts.refusedClaims(),
                        counts.refusedProof(),
                        counts.wouldRefuseList(),
                        counts.listSketch(),
                        counts.wouldRefuseList(),
                        counts.wouldRefuseClaims(),
                        counts.claimsSketch(),
                        counts.wouldRefuseClaims(),
                        couponId)
                .update();
    }

    /** Sets the rules (the list's generation and count stay), and raises the coupon's version. */
    public void save(long couponId, GateSettings settings) {
        jdbc.sql("INSERT INTO coupon_gate (coupon_id, list_required, claims, mode, human_check, difficulty_bits)"
                        + " VALUES (?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE list_required = VALUES(list_required),"
                        + " claims = VALUES(claims), mode = VALUES(mode), human_check = VALUES(human_check),"
                        + " difficulty_bits = VALUES(difficulty_bits)")
                .params(
                        couponId,
                        settings.list(),
                        settings.claims().isEmpty() ? null : JSON.writeValueAsString(settings.claims()),
                        settings.mode().name(),
                        settings.humanCheck() == null
                                ? null
                                : settings.humanCheck().name(),
                        settings.difficultyBits())
                .update();
        bumpVersion(couponId);
    }

    /** A new upload's number (its rows are written under it, and become the list only by {@link #switchTo}). */
    public long nextGeneration(long couponId) {
        jdbc.sql("INSERT INTO coupon_gate (coupon_id, next_generation) VALUES (?, 1)"
                        + " ON DUPLICATE KEY UPDATE next_generation = next_generation + 1")
                .param(couponId)
                .update();
        return jdbc.sql("SELECT next_generation FROM coupon_gate WHERE coupon_id = ?")
                .param(couponId)
                .query(Long.class)
                .single();
    }

    /** One batch of an upload's members; a member listed twice is kept once. */
    public void insertMembers(long couponId, long generation, List<String> members) {
        if (members.isEmpty()) {
            return;
        }
        StringBuilder sql = new StringBuilder(
                "INSERT IGNORE INTO coupon_eligible_member (coupon_id, generation, member_id) VALUES ");
        Object[] params = new Object[members.size() * 3];
        for (int i = 0; i < members.size(); i++) {
            sql.append(i == 0 ? "(?, ?, ?)" : ", (?, ?, ?)");
            params[i * 3] = couponId;
            params[i * 3 + 1] = generation;
            params[i * 3 + 2] = members.get(i);
        }
        jdbc.sql(sql.toString()).params(params).update();
    }

    /** {@link #switchTo}'s answer when a later upload is the list already. */
    public static final long OVERTAKEN = -1;

    /** {@link #switchTo}'s answer when the event opened (by MySQL's clock) before the upload ended: nothing replaced. */
    public static final long OPENED = -2;

    /**
     * Makes the upload the event's list, unless a later upload already did ({@link #OVERTAKEN}) or the event is open
     * now ({@link #OPENED}): the open time is checked again here, in the statement and by MySQL's clock, since an
     * upload checked against it when it began may end seconds or minutes later. Returns the list's size.
     */
    public long switchTo(long couponId, long generation) {
        long count = jdbc.sql("SELECT COUNT(*) FROM coupon_eligible_member WHERE coupon_id = ? AND generation = ?")
                .params(couponId, generation)
                .query(Long.class)
                .single();
        int changed = jdbc.sql("UPDATE coupon_gate g JOIN coupon c ON c.id = g.coupon_id"
                        + " SET g.list_generation = ?, g.list_count = ?"
                        + " WHERE g.coupon_id = ? AND g.list_generation < ? AND c.open_at > NOW(3)")
                .params(generation, count, couponId, generation)
                .update();
        if (changed == 0) {
            boolean open = jdbc.sql("SELECT open_at <= NOW(3) FROM coupon WHERE id = ?")
                    .param(couponId)
                    .query(Boolean.class)
                    .single();
            return open ? OPENED : OVERTAKEN;
        }
        bumpVersion(couponId);
        return count;
    }

    /** Removes the rows of every upload but the current list, a batch at a time; how many went in this batch. */
    public int removeOthers(long couponId, long keep, int batch) {
        return jdbc.sql("DELETE FROM coupon_eligible_member WHERE coupon_id = ? AND generation <> ? LIMIT ?")
                .params(couponId, keep, batch)
                .update();
    }

    /** Whether the member is on the event's list (the upload {@code generation}). */
    public boolean isListed(long couponId, long generation, String memberId) {
        return jdbc.sql("SELECT COUNT(*) FROM coupon_eligible_member WHERE coupon_id = ? AND generation = ?"
                                + " AND member_id = ?")
                        .params(couponId, generation, memberId)
                        .query(Long.class)
                        .single()
                > 0;
    }

    /** One page of a list, by member id after {@code after}. */
    public List<String> page(long couponId, long generation, String after, int size) {
        return jdbc.sql("SELECT member_id FROM coupon_eligible_member WHERE coupon_id = ? AND generation = ?"
                        + " AND member_id > ? ORDER BY member_id LIMIT ?")
                .params(couponId, generation, after, size)
                .query(String.class)
                .list();
    }

    private void bumpVersion(long couponId) {
        jdbc.sql("UPDATE coupon SET version = version + 1 WHERE id = ?")
                .param(couponId)
                .update();
    }
}
