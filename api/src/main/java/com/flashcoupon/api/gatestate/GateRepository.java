package com.flashcoupon.api.gatestate;

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

    public Optional<Stored> find(long couponId) {
        return jdbc.sql("SELECT list_required, claims, mode, human_check, difficulty_bits, list_generation, list_count"
                        + " FROM coupon_gate WHERE coupon_id = ?")
                .param(couponId)
                .query((rs, row) -> new Stored(
                        new GateSettings(
                                rs.getBoolean("list_required"),
                                rs.getString("claims") == null
                                        ? Map.of()
                                        : JSON.readValue(rs.getString("claims"), CLAIMS),
                                GateSettings.Mode.valueOf(rs.getString("mode")),
                                rs.getString("human_check") == null
                                        ? null
                                        : GateSettings.HumanCheck.valueOf(rs.getString("human_check")),
                                rs.getInt("difficulty_bits")),
                        rs.getLong("list_generation"),
                        rs.getLong("list_count")))
                .optional();
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

    /**
     * Makes the upload the event's list, unless a later upload already did; false then. Returns the list's size.
     */
    public long switchTo(long couponId, long generation) {
        long count = jdbc.sql("SELECT COUNT(*) FROM coupon_eligible_member WHERE coupon_id = ? AND generation = ?")
                .params(couponId, generation)
                .query(Long.class)
                .single();
        int changed = jdbc.sql("UPDATE coupon_gate SET list_generation = ?, list_count = ?"
                        + " WHERE coupon_id = ? AND list_generation < ?")
                .params(generation, count, couponId, generation)
                .update();
        if (changed == 0) {
            return -1;
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
