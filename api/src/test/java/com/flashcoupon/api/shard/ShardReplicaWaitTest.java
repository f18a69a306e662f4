package com.flashcoupon.api.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.api.support.RedisProcess;
import com.flashcoupon.contract.StockShards;
import com.flashcoupon.db.TcpProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Transfers between shards on the api's own script connection with a real replica and {@code WAIT} (docs/architecture.md,
 * "Stock shards"): while the replica does not acknowledge, no transfer is taken (a failover could undo its give after
 * the take counted it), the member is neither admitted nor told sold out, and no coupon is lost; once it acknowledges
 * again, the transfer completes.
 */
class ShardReplicaWaitTest {

    @Test
    void shouldTakeNoTransferTheReplicaHasNotAcknowledgedAndLoseNone() throws Exception {
        try (RedisProcess primary = new RedisProcess();
                TcpProxy replication = new TcpProxy("127.0.0.1", primary.port());
                RedisProcess replica =
                        new RedisProcess("--replicaof", "127.0.0.1", Integer.toString(replication.port()))) {
            awaitLinked(replica);
            var factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", primary.port()));
            factory.afterPropertiesSet();
            factory.start();
            var connection = new ScriptConnection(factory, new SimpleMeterRegistry());
            connection.start();
            try {
                var stock = new ShardStock(new ScriptShardRedis(connection, 1, 200));
                long coupon = 77;
                int shards = 2;
                int total = 4; // 2 and 2
                stock.deal().init(coupon, shards, total).block();
                List<String> homeZero = IntStream.range(0, 200)
                        .mapToObj(i -> "r-" + i)
                        .filter(member -> StockShards.home(member, shards) == 0)
                        .limit(4)
                        .toList();
                for (int i = 0; i < 3; i++) {
                    assertThat(stock.admit(coupon, shards, homeZero.get(i))
                                    .block()
                                    .outcome())
                            .as("member %d of home 0, the replica acknowledging", i)
                            .isEqualTo(ShardStock.Outcome.ADMITTED);
                }

                replication.holdReplies();
                assertThatThrownBy(() ->
                                stock.admit(coupon, shards, homeZero.get(3)).block())
                        .isInstanceOf(ShardStock.Unsettled.class);
                List<ShardTransfers.Look> looks = stock.look(coupon, shards).block();
                assertThat(ShardStockTest.capsInAll(looks))
                        .as("the amount in escrow, in no cap")
                        .isEqualTo(total - 1);
                assertThat(looks.get(1).escrow()).hasSize(1);

                replication.releaseReplies();
                assertThat(stock.admit(coupon, shards, homeZero.get(3)).block().outcome())
                        .isEqualTo(ShardStock.Outcome.ADMITTED);
                looks = stock.look(coupon, shards).block();
                assertThat(ShardStockTest.capsInAll(looks)).isEqualTo(total);
                assertThat(looks).allSatisfy(look -> {
                    assertThat(look.free()).isZero();
                    assertThat(look.escrow()).isEmpty();
                });
            } finally {
                connection.stop();
                factory.destroy();
            }
        }
    }

    private static void awaitLinked(RedisProcess replica) {
        try (RedisClient client = RedisClient.create(replica.url());
                StatefulRedisConnection<String, String> connection = client.connect()) {
            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() ->
                            assertThat(connection.sync().info("replication")).contains("master_link_status:up"));
        }
    }
}
