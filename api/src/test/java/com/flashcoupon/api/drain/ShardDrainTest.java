package com.flashcoupon.api.drain;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.api.shard.LettuceShardRedis;
import com.flashcoupon.api.shard.ShardOrder;
import com.flashcoupon.api.shard.ShardPositions;
import com.flashcoupon.api.shard.ShardStock;
import com.flashcoupon.api.status.IssuePace;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.StockShards;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * A sharded event's drain turn reads every shard (a call each) on every tick and instance until the event retires, 24 h
 * after it settles as shipped: a finished event (its whole stock admitted, published and decided) is read once per
 * {@link ShardDrain#FINISHED_READ_NANOS} instead, at once again when its total changes. Against the test Redis, the
 * shard calls counted.
 */
class ShardDrainTest {

    private static final long COUPON = 9_000_000_101L;
    private static final int SHARDS = 3;

    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static final AtomicInteger calls = new AtomicInteger();
    private static ShardStock stock;
    private static ShardStock.Redis counted;

    @BeforeAll
    static void connect() {
        client = RedisClient.create(TestEnvironment.REDIS_URL);
        connection = client.connect();
        ShardStock.Redis plain = new LettuceShardRedis(connection.async());
        counted = new ShardStock.Redis() {
            @Override
            public Mono<List<Object>> eval(ScriptConnection.Script script, String[] keys, String... args) {
                calls.incrementAndGet();
                return plain.eval(script, keys, args);
            }
        };
        stock = new ShardStock(counted);
    }

    @AfterAll
    static void close() {
        connection.close();
        client.shutdown();
    }

    @AfterEach
    void removeKeys() {
        List<String> keys = new ArrayList<>(CouponKeys.state(COUPON));
        for (int shard = 0; shard < SHARDS; shard++) {
            keys.addAll(StockShards.state(COUPON, SHARDS, shard));
        }
        TestEnvironment.redis().delete(keys);
    }

    private final ShardDrain drain = new ShardDrain(
            new ShardOrder(counted, stock),
            new ShardPositions(counted, stock),
            stock,
            counted,
            new DrainPacer(Duration.ofMillis(200).toNanos()),
            new DrainRates(
                    TestEnvironment.redis(),
                    DrainSettings.drain(Duration.ofMillis(200)),
                    new IssuePace(),
                    new SimpleMeterRegistry()),
            null, // an instance that does not drain the event: no lease, ledger or publisher reached
            null,
            null,
            Clock.systemUTC(),
            Duration.ofMillis(200),
            1000,
            false);

    /** Three coupons over three shards, each admitted; {@code decided} of them published and decided. */
    private static void eventOfThree(int decided) {
        stock.deal().init(COUPON, SHARDS, 3).block();
        TestEnvironment.redis().opsForHash().put(CouponKeys.meta(COUPON), "rate", "100");
        for (int shard = 0; shard < SHARDS; shard++) {
            String member;
            do {
                member = "finished-" + java.util.UUID.randomUUID();
            } while (StockShards.home(member, SHARDS) != shard);
            assertThat(stock.admit(COUPON, SHARDS, member).block().outcome()).isEqualTo(ShardStock.Outcome.ADMITTED);
            if (shard < decided) {
                String tag = StockShards.tag(COUPON, SHARDS, shard);
                TestEnvironment.redis().opsForValue().set(StockShards.cursor(tag), "1");
                TestEnvironment.redis().opsForValue().set(StockShards.done(tag), "1");
            }
        }
    }

    /** drain_claim.lua's reply as another instance gets it: not owned, rate 100, the event's shards and total, open. */
    private static List<?> claim(long total) {
        return claim(total, 0, 0);
    }

    private static List<?> claim(long total, long closed, long closeAt) {
        return Arrays.asList(0L, 0L, 0L, 100L, 0L, 0L, "", "", "", 0L, (long) SHARDS, total, closed, closeAt);
    }

    private static int callsOf(Runnable turn) {
        int before = calls.get();
        turn.run();
        return calls.get() - before;
    }

    @Test
    void shouldReadAFinishedEventsShardsOnceAndNotOnTheNextTicks() {
        eventOfThree(SHARDS);

        assertThat(callsOf(() -> drain.drain(COUPON, SHARDS, claim(3), false)))
                .as("the first turn reads each shard")
                .isEqualTo(SHARDS);
        assertThat(callsOf(() -> drain.drain(COUPON, SHARDS, claim(3), false)))
                .as("the next turn, within the finished read's period")
                .isZero();
        assertThat(callsOf(() -> drain.drain(COUPON, SHARDS, claim(4), false)))
                .as("a turn after the operator raised the total")
                .isEqualTo(SHARDS);

        drain.retainOnly(Set.of());
        assertThat(callsOf(() -> drain.drain(COUPON, SHARDS, claim(3), false)))
                .as("a turn once forgotten")
                .isEqualTo(SHARDS);
    }

    /** Closed with stock left: finished once everything admitted is published and decided; read again when reopened. */
    @Test
    void shouldReadAClosedEventsShardsOnceUntilItIsReopened() {
        eventOfThree(SHARDS);

        assertThat(callsOf(() -> drain.drain(COUPON, SHARDS, claim(10), false)))
                .as("open, stock left: read")
                .isEqualTo(SHARDS);
        assertThat(callsOf(() -> drain.drain(COUPON, SHARDS, claim(10), false)))
                .as("open, stock left: read every tick")
                .isEqualTo(SHARDS);
        assertThat(callsOf(() -> drain.drain(COUPON, SHARDS, claim(10, 1, 0), false)))
                .as("closed by the operator: read once")
                .isEqualTo(SHARDS);
        assertThat(callsOf(() -> drain.drain(COUPON, SHARDS, claim(10, 1, 0), false)))
                .isZero();
        assertThat(callsOf(() -> drain.drain(COUPON, SHARDS, claim(10, 0, 0), false)))
                .as("reopened")
                .isEqualTo(SHARDS);
        long past = System.currentTimeMillis() - 1_000;
        drain.drain(COUPON, SHARDS, claim(10, 0, past), false);
        assertThat(callsOf(() -> drain.drain(COUPON, SHARDS, claim(10, 0, past), false)))
                .as("past its closeAt")
                .isZero();
    }

    @Test
    void shouldReadAnEventEveryTickWhileAMemberWaits() {
        eventOfThree(SHARDS - 1);

        for (int tick = 0; tick < 3; tick++) {
            assertThat(callsOf(() -> drain.drain(COUPON, SHARDS, claim(3), false)))
                    .as("turn %d: one member not yet published", tick)
                    .isEqualTo(SHARDS);
        }
    }

    @Test
    void shouldCallAnEventFinishedOnlyWhenItsWholeStockIsAdmittedPublishedAndDecided() {
        ShardOrder.Batch all = batch(10, 10, 10, 0, 0);
        assertThat(ShardDrain.finished(all, 0, 10, false)).isTrue();
        assertThat(ShardDrain.finished(all, 0, 11, false)).as("stock left").isFalse();
        assertThat(ShardDrain.finished(all, 0, 11, true))
                .as("stock left, closed")
                .isTrue();
        assertThat(ShardDrain.finished(batch(10, 10, 11, 0, 0), 1, 11, false))
                .as("one more known from a restore, decided")
                .isTrue();
        assertThat(ShardDrain.finished(all, 1, 11, false))
                .as("one more known from a restore, not decided yet")
                .isFalse();
        assertThat(ShardDrain.finished(batch(10, 10, 11, 0, 1), 1, 11, false))
                .as("a member who asked again after the restore freed a place")
                .isFalse();
        assertThat(ShardDrain.finished(batch(10, 9, 10, 0, 0), 0, 10, false))
                .as("one not published")
                .isFalse();
        assertThat(ShardDrain.finished(batch(10, 9, 9, 0, 0), 0, 10, true))
                .as("one not published, closed")
                .isFalse();
        assertThat(ShardDrain.finished(batch(10, 10, 9, 0, 0), 0, 10, false))
                .as("one not decided")
                .isFalse();
        assertThat(ShardDrain.finished(batch(10, 10, 10, 1, 0), 0, 10, false))
                .as("a transfer in escrow")
                .isFalse();
        assertThat(ShardDrain.finished(all, 0, -1, false))
                .as("a total that is not a number")
                .isFalse();
    }

    private static ShardOrder.Batch batch(long admitted, long cursor, long done, long escrowed, long again) {
        long[] none = new long[SHARDS];
        return new ShardOrder.Batch(
                List.of(), 0, 0, cursor, admitted, done, 0, escrowed, none, none, 0, again, none, none);
    }
}
