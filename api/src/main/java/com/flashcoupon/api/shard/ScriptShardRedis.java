package com.flashcoupon.api.shard;

import com.flashcoupon.api.redis.ScriptConnection;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The shard scripts on the api's own script connection, with its replica wait: each step of a transfer waits for
 * {@code minReplicas} replicas ({@code coupon.redis.min-replicas}) before the next, as admissions do before their 202.
 * A wait that fails or falls short counts as not replicated: the transfer stays in escrow.
 */
public record ScriptShardRedis(ScriptConnection connection, int minReplicas, long timeoutMs)
        implements ShardStock.Redis {

    @Override
    public Mono<List<Object>> eval(ScriptConnection.Script script, String[] keys, String... args) {
        return connection.eval(script, keys, args);
    }

    @Override
    public long epoch() {
        return connection.epoch();
    }

    @Override
    public Mono<Boolean> replicated(String key, long since) {
        if (minReplicas <= 0) {
            return Mono.just(true);
        }
        return connection
                .awaitReplicas(key, minReplicas, timeoutMs, since)
                .map(acknowledged -> acknowledged >= minReplicas)
                .onErrorReturn(false);
    }
}
