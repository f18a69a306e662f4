package com.flashcoupon.api.redemption;

import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.api.web.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * Each write's {@code Idempotency-Key} ({@code redemption_idempotency}): the key is claimed by an INSERT in the write's
 * own transaction, so a second request with the same key waits for the first to commit and then finds its answer (or,
 * if the first rolled back, claims the key itself). The answer, a success or a problem, is stored in the same
 * transaction as the change it reports. Blocking.
 */
@Repository
class Idempotency {

    /** A stored answer: an HTTP status with the redemption's JSON, or with a problem's code and detail. */
    record Answer(int status, String code, String body) {}

    private final JdbcClient jdbc;
    private final JsonMapper json;

    Idempotency(JdbcClient jdbc, JsonMapper json) {
        this.jdbc = jdbc;
        this.json = json;
    }

    /**
     * Runs a write once per key: claims the key, does the work, stores its answer (a success or a problem) in the same
     * transaction, so the answer commits with the change it reports. The same key and request later answer what was
     * stored, problems included; a problem thrown by the work commits what the work wrote before it (a time-out it
     * met on the way).
     */
    Redemptions.Outcome once(
            TransactionTemplate transaction,
            String caller,
            String key,
            String request,
            Supplier<Redemptions.Outcome> work) {
        Answer answer = transaction.execute(status -> {
            Optional<Answer> earlier = claim(caller, key, request);
            if (earlier.isPresent()) {
                return earlier.get();
            }
            Answer now;
            try {
                Redemptions.Outcome outcome = work.get();
                now = new Answer(outcome.status(), null, json.writeValueAsString(outcome.redemption()));
            } catch (ApiException refused) {
                now = new Answer(refused.code().status().value(), refused.code().name(), refused.getMessage());
            }
            store(caller, key, now);
            return now;
        });
        if (answer.code() != null) {
            throw ApiException.of(ErrorCode.valueOf(answer.code()), answer.body());
        }
        return new Redemptions.Outcome(answer.status(), json.readValue(answer.body(), Redemption.class));
    }

    /**
     * Claims the key for this request, or answers what it answered before.
     *
     * @return empty when this request claimed the key (go on, then {@link #store}); the earlier answer otherwise
     * @throws ApiException 422 {@code IDEMPOTENCY_KEY_REUSED} when the key was used for another request
     */
    Optional<Answer> claim(String caller, String key, String request) {
        String hash = sha256(request);
        int claimed = jdbc.sql("INSERT IGNORE INTO redemption_idempotency (caller, idempotency_key, request_hash,"
                        + " created_at) VALUES (?, ?, ?, NOW(3))")
                .params(caller, key, hash)
                .update();
        if (claimed == 1) {
            return Optional.empty();
        }
        record Stored(String hash, Answer answer) {}
        Stored stored = jdbc.sql("SELECT request_hash, status, code, body FROM redemption_idempotency"
                        + " WHERE caller = ? AND idempotency_key = ?")
                .params(caller, key)
                .query((rs, row) ->
                        new Stored(rs.getString(1), new Answer(rs.getInt(2), rs.getString(3), rs.getString(4))))
                .single();
        if (!stored.hash().equals(hash)) {
            throw ApiException.of(
                    ErrorCode.IDEMPOTENCY_KEY_REUSED,
                    "Idempotency-Key " + key + " was used for another request; use a new key for a new request.");
        }
        return Optional.of(stored.answer());
    }

    void store(String caller, String key, Answer answer) {
        jdbc.sql("UPDATE redemption_idempotency SET status = ?, code = ?, body = ? WHERE caller = ? AND"
                        + " idempotency_key = ?")
                .params(answer.status(), answer.code(), answer.body(), caller, key)
                .update();
    }

    /** Forgets keys older than the retention, a batch at a time. */
    int forgetOlderThan(long seconds, int limit) {
        return jdbc.sql("DELETE FROM redemption_idempotency WHERE created_at < NOW(3) - INTERVAL ? SECOND LIMIT ?")
                .params(seconds, limit)
                .update();
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
