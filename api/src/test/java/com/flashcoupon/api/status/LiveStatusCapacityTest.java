package com.flashcoupon.api.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations;

/**
 * One api instance holds 10,000 idle live status streams: a client in a JVM of its own ({@link SseCrowd}) opens one
 * stream per admitted member; every stream gets its first status event, the api's thread count stays where it was,
 * and the heap the streams take is measured and printed. It takes minutes on a busy two-core machine, so it runs only
 * when asked: {@code ./mvnw -pl api -am verify -Dtest='LiveStatusCapacityTest*' -Dcoupon.test.live-capacity=true
 * -Dsurefire.failIfNoSpecifiedTests=false} ({@code -Dcoupon.test.live-streams=N} for another count).
 */
@ApiTest
@EnabledIfSystemProperty(named = "coupon.test.live-capacity", matches = "true")
class LiveStatusCapacityTest extends ApiTestBase {

    private static final int STREAMS = Integer.getInteger("coupon.test.live-streams", 10_000);

    @Value("${local.server.port}")
    int port;

    @Autowired
    LiveStatusHub hub;

    @Test
    void shouldHoldTenThousandIdleStreamsWithBoundedThreadsWhenEveryMemberWatches() throws Exception {
        long couponId = createCoupon(STREAMS, 1);
        StringRedisTemplate redis = TestEnvironment.redis();
        // admitted as the admission script would have: member -> sequence
        Set<ZSetOperations.TypedTuple<String>> queue = new HashSet<>();
        for (int i = 1; i <= STREAMS; i++) {
            queue.add(ZSetOperations.TypedTuple.of("cap-" + i, (double) i));
        }
        redis.opsForZSet().add(CouponKeys.queue(couponId), queue);
        redis.opsForValue().set(CouponKeys.seq(couponId), Integer.toString(STREAMS));

        var threads = ManagementFactory.getThreadMXBean();
        var memory = ManagementFactory.getMemoryMXBean();
        System.gc();
        long heapBefore = memory.getHeapMemoryUsage().getUsed();
        int threadsBefore = threads.getThreadCount();
        long start = System.nanoTime();

        Process client = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx768m",
                        "-Dreactor.netty.ioWorkerCount=2",
                        "-cp",
                        System.getProperty("java.class.path"),
                        SseCrowd.class.getName(),
                        "http://127.0.0.1:" + port,
                        Long.toString(couponId),
                        Integer.toString(STREAMS),
                        TestEnvironment.JWT_SECRET)
                .redirectErrorStream(true)
                .start();
        CountDownLatch all = new CountDownLatch(1);
        List<String> output = new java.util.concurrent.CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (var lines =
                    new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                    output.add(line);
                    if (line.equals("ALL")) {
                        all.countDown();
                    }
                }
            } catch (java.io.IOException e) {
                // the client ended
            }
        });
        reader.setDaemon(true);
        reader.start();
        try {
            assertThat(all.await(300, TimeUnit.SECONDS))
                    .as("every stream got its first event; client said %s", output)
                    .isTrue();
            long openedIn = Duration.ofNanos(System.nanoTime() - start).toMillis();
            await().atMost(Duration.ofSeconds(10)).until(() -> hub.openStreams() >= STREAMS);
            Thread.sleep(3_000); // a few ticks and heartbeats over all of them
            int threadsDuring = threads.getThreadCount();
            System.gc();
            long heapDuring = memory.getHeapMemoryUsage().getUsed();
            System.out.printf(
                    "LIVE-CAPACITY streams=%d openedInMs=%d threadsBefore=%d threadsDuring=%d heapBeforeMiB=%d"
                            + " heapDuringMiB=%d heapPerStreamBytes=%d%n",
                    hub.openStreams(),
                    openedIn,
                    threadsBefore,
                    threadsDuring,
                    heapBefore >> 20,
                    heapDuring >> 20,
                    (heapDuring - heapBefore) / STREAMS);
            assertThat(hub.openStreams()).isEqualTo(STREAMS);
            assertThat(threadsDuring - threadsBefore)
                    .as("threads added while holding the streams")
                    .isLessThan(32);
            assertThat(heapDuring - heapBefore).as("heap the streams take").isLessThan(512L << 20);
        } finally {
            client.getOutputStream().close();
            if (!client.waitFor(20, TimeUnit.SECONDS)) {
                client.destroyForcibly();
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> hub.openStreams() == 0);
    }
}
