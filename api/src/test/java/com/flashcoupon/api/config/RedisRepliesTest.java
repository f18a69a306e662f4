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

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

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
        CountDownLatch otherAnswered = new CountDownLatch(1);
        try {
            ReactiveStringRedisTemplate redis = new ReactiveStringRedisTemplate(factory);
            redis.opsForValue().set("redis-replies-test:other", "answered").block(Duration.ofSeconds(10));

            // The first caller keeps the thread its reply came on until the other reply is in (at most two command
            // time-outs and more): the test, not the machine's speed, decides that it is busy long enough.
            CountDownLatch busy = new CountDownLatch(1);
            Disposable first = redis.opsForValue()
                    .get("redis-replies-test:first")
                    .defaultIfEmpty("")
                    .doOnNext(reply -> {
                        busy.countDown();
                        holdUntil(otherAnswered, COMMAND_TIMEOUT.multipliedBy(3));
                    })
                    .subscribe();
            assertThat(busy.await(30, TimeUnit.SECONDS))
                    .as("the first reply arrived")
                    .isTrue();

            // Meanwhile another command: Redis answers it at once, so it must not fail with a time-out.
            String other = redis.opsForValue().get("redis-replies-test:other").block(Duration.ofSeconds(30));
            otherAnswered.countDown();

            assertThat(other).isEqualTo("answered");
            first.dispose();
        } finally {
            otherAnswered.countDown();
            factory.destroy();
        }
    }

    /**
     * Keeps the current thread until {@code released}, or {@code atMost} passed: the thread is taken as it is by slow
     * cold code, without burning one of the machine's two cores meanwhile.
     */
    private static void holdUntil(CountDownLatch released, Duration atMost) {
        try {
            released.await(atMost.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
