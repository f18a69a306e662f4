package com.flashcoupon.worker.support;

import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.contract.Topics;
import com.flashcoupon.db.Coupon;
import com.flashcoupon.db.CouponRepository;
import com.flashcoupon.db.NewCoupon;
import com.flashcoupon.db.TestDatabase;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.TestComponent;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import tools.jackson.databind.json.JsonMapper;

/** What a pipeline test drives and looks at: coupons, requests in, results and dead letters out, MySQL and Redis. */
@TestComponent
public class Pipeline implements DisposableBean {

    private static final JsonMapper JSON = new JsonMapper();

    private final CouponRepository coupons;
    private final JdbcClient jdbc;
    private final StringRedisTemplate redis;
    private final String brokers;
    private RequestPublisher publisher;
    private TopicReader results;
    private TopicReader deadLetters;

    Pipeline(
            CouponRepository coupons,
            JdbcClient jdbc,
            StringRedisTemplate redis,
            @Value("${spring.embedded.kafka.brokers}") String brokers) {
        this.coupons = coupons;
        this.jdbc = jdbc;
        this.redis = redis;
        this.brokers = brokers;
    }

    /** Points the app at this class's database and at the test Redis. */
    public static void register(DynamicPropertyRegistry registry, TestDatabase database) {
        database.springProperties().forEach((name, value) -> registry.add(name, () -> value));
        registry.add("spring.data.redis.url", TestRedis::url);
    }

    public record Wallet(long id, String memberId, long requestSeq) {}

    public record Failure(String memberId, long requestSeq, String reason) {}

    public long newCoupon(int quantity) {
        return coupons.insert(
                new NewCoupon("Flash " + quantity, quantity, Instant.parse("2026-01-01T00:00:00Z"), null, 500, 30));
    }

    /** Requests of members {@code m-from .. m-to} with sequences {@code from .. to}. */
    public static List<IssueRequested> requests(long couponId, long from, long to) {
        return LongStream.rangeClosed(from, to)
                .mapToObj(i -> new IssueRequested(couponId, "m-" + i, i, 1_700_000_000_000L + i))
                .toList();
    }

    public synchronized RequestPublisher publisher() {
        if (publisher == null) {
            publisher = new RequestPublisher(brokers);
        }
        return publisher;
    }

    public void publish(List<IssueRequested> requests) {
        publisher().send(requests);
    }

    public synchronized List<IssueResult> results(long couponId) {
        if (results == null) {
            results = new TopicReader(brokers, Topics.ISSUE_RESULT);
        }
        return results.poll().stream()
                .filter(record -> Topics.key(couponId).equals(record.key()))
                .map(record -> JSON.readValue(record.value(), IssueResult.class))
                .filter(result -> result.couponId() == couponId)
                .toList();
    }

    /** Dead letters whose key is this coupon's. */
    public synchronized List<ConsumerRecord<String, byte[]>> deadLetters(long keyCouponId) {
        if (deadLetters == null) {
            deadLetters = new TopicReader(brokers, Topics.ISSUE_REQUESTED_DEAD_LETTER);
        }
        return deadLetters.poll().stream()
                .filter(record -> Topics.key(keyCouponId).equals(record.key()))
                .toList();
    }

    public Coupon coupon(long couponId) {
        return coupons.findById(couponId).orElseThrow();
    }

    /** Wallet rows in id order. */
    public List<Wallet> wallets(long couponId) {
        return jdbc.sql("SELECT id, member_id, request_seq FROM coupon_wallet WHERE coupon_id = ? ORDER BY id")
                .param(couponId)
                .query((rs, row) -> new Wallet(rs.getLong(1), rs.getString(2), rs.getLong(3)))
                .list();
    }

    /**
     * {@code issued_at} of each wallet as epoch ms, computed by the server (session time zone UTC), so it checks both
     * the zone and the fraction the app reads.
     */
    public Map<String, Long> issuedAtMillis(long couponId) {
        return jdbc
                .sql("SELECT member_id, CAST(ROUND(UNIX_TIMESTAMP(issued_at) * 1000) AS SIGNED) FROM coupon_wallet"
                        + " WHERE coupon_id = ?")
                .param(couponId)
                .query((rs, row) -> Map.entry(rs.getString(1), rs.getLong(2)))
                .list()
                .stream()
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    public List<Failure> failures(long couponId) {
        return jdbc.sql("SELECT member_id, request_seq, reason FROM coupon_issue_failure WHERE coupon_id = ?"
                        + " ORDER BY request_seq")
                .param(couponId)
                .query((rs, row) -> new Failure(rs.getString(1), rs.getLong(2), rs.getString(3)))
                .list();
    }

    /** The Redis status hash: member → {@code I:<walletId>} or {@code F:<reason>}. */
    public Map<Object, Object> statuses(long couponId) {
        return redis.opsForHash().entries(CouponKeys.result(couponId));
    }

    public long done(long couponId) {
        String done = redis.opsForValue().get(CouponKeys.done(couponId));
        return done == null ? 0 : Long.parseLong(done);
    }

    @Override
    public synchronized void destroy() {
        for (AutoCloseable closeable : new AutoCloseable[] {publisher, results, deadLetters}) {
            if (closeable != null) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    // closing test clients at context shutdown: nothing to do about it
                }
            }
        }
    }
}
