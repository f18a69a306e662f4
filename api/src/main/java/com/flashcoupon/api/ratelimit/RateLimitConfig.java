package com.flashcoupon.api.ratelimit;

import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Bucket4j's Lettuce integration over the app's own Redis client: buckets live in Redis, shared by every instance. */
@Configuration(proxyBeanMethods = false)
class RateLimitConfig {

    @Bean(destroyMethod = "close")
    StatefulRedisConnection<String, byte[]> rateLimitConnection(LettuceConnectionFactory factory) {
        if (!(factory.getRequiredNativeClient() instanceof RedisClient client)) {
            throw new IllegalStateException("rate limits need a standalone Redis client");
        }
        return client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
    }

    @Bean
    AsyncProxyManager<String> rateLimitBuckets(StatefulRedisConnection<String, byte[]> connection) {
        return Bucket4jLettuce.casBasedBuilder(connection)
                .expirationAfterWrite(
                        ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
                .build()
                .asAsync();
    }
}
