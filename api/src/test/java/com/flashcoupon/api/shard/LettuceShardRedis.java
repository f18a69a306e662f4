package com.flashcoupon.api.shard;

import com.flashcoupon.api.redis.ScriptConnection;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.List;
import reactor.core.publisher.Mono;

/** The shard scripts on a plain Lettuce connection (a standalone Redis or a cluster), as the tests run them. */
public record LettuceShardRedis(RedisClusterAsyncCommands<String, String> commands) implements ShardStock.Redis {

    @Override
    public Mono<List<Object>> eval(ScriptConnection.Script script, String[] keys, String... args) {
        return Mono.fromCompletionStage(commands.<List<Object>>eval(script.text(), ScriptOutputType.MULTI, keys, args));
    }
}
