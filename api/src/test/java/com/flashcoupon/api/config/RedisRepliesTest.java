package com.flashcoupon.api.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.TestEnvironment;
import io.lettuce.core.ClientOptions;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import reactor.core.Disposable;

/**
 * The api's Lettuce options against the real Redis: a request that keeps its thread busy after its Redis reply (cold
 * code under a crowd) must not make the replies of other requests wait past the command time-out, which answers them
 * 503 although Redis did the work (bin/demo's cold start).
 */
class RedisRepliesTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

    @Test
    void aCallerBusyAfterItsReplyDoesNotTimeOutTheRepliesOfOthers() throws InterruptedException {
        ClientOptions.Builder options = ClientOptions.builder();
        new RedisConfig().failFastWhileDisconnected().customize(options);
        LettuceClientConfiguration.LettuceClientConfigurationBuilder builder = LettuceClientConfiguration.builder()
                .commandTimeout(COMMAND_TIMEOUT)
                .clientOptions(options.build());
        LettuceConnectionFactory factory = new LettuceConnectionFactory(standalone(), builder.build());
        factory.afterPropertiesSet();
        factory.start();
        try {
            ReactiveStringRedisTemplate redis = new ReactiveStringRedisTemplate(factory);
            redis.opsForValue().set("redis-replies-test:other", "answered").block(Duration.ofSeconds(5));

            // The first caller works for three command time-outs on the thread its reply came on.
            CountDownLatch busy = new CountDownLatch(1);
            Disposable first = redis.opsForValue()
                    .get("redis-replies-test:first")
                    .defaultIfEmpty("")
                    .doOnNext(reply -> {
                        busy.countDown();
                        spin(COMMAND_TIMEOUT.multipliedBy(3));
                    })
                    .subscribe();
            assertThat(busy.await(5, TimeUnit.SECONDS))
                    .as("the first reply arrived")
                    .isTrue();

            // Meanwhile another command: Redis answers it at once, so it must not fail with a time-out.
            String other = redis.opsForValue().get("redis-replies-test:other").block(Duration.ofSeconds(10));

            assertThat(other).isEqualTo("answered");
            first.dispose();
        } finally {
            factory.destroy();
        }
    }

    /** Keeps the current thread busy (not sleeping: work, as cold code under a crowd). */
    private static void spin(Duration duration) {
        long end = System.nanoTime() + duration.toNanos();
        long sink = 0;
        while (System.nanoTime() < end) {
            sink += System.nanoTime() % 7;
        }
        if (sink == 42) {
            System.out.print("");
        }
    }

    private static RedisStandaloneConfiguration standalone() {
        URI uri = URI.create(TestEnvironment.REDIS_URL);
        RedisStandaloneConfiguration config = new RedisStandaloneConfiguration(uri.getHost(), uri.getPort());
        String path = uri.getPath();
        config.setDatabase(path == null || path.length() <= 1 ? 0 : Integer.parseInt(path.substring(1)));
        return config;
    }
}
