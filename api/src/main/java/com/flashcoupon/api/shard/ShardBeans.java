package com.flashcoupon.api.shard;

import com.flashcoupon.api.config.ApiProperties;
import com.flashcoupon.api.redis.ScriptConnection;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The shard machinery on the api's script connection, with its replica wait (one instance of each per api). */
@Configuration(proxyBeanMethods = false)
class ShardBeans {

    @Bean
    ScriptShardRedis shardRedis(ScriptConnection connection, ApiProperties properties) {
        return new ScriptShardRedis(
                connection,
                properties.redis().minReplicas(),
                properties.redis().replicaTimeout().toMillis());
    }

    @Bean
    ShardStock shardStock(ScriptShardRedis redis) {
        return new ShardStock(redis);
    }

    @Bean
    ShardOrder shardOrder(ScriptShardRedis redis, ShardStock stock) {
        return new ShardOrder(redis, stock);
    }

    @Bean
    ShardPositions shardPositions(ScriptShardRedis redis, ShardStock stock) {
        return new ShardPositions(redis, stock);
    }
}
