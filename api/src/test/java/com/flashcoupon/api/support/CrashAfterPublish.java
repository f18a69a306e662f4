package com.flashcoupon.api.support;

import com.flashcoupon.api.drain.PublishHook;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/** Injects a crash between Kafka's acknowledgement and the cursor advance, once, for an armed coupon. */
@TestConfiguration(proxyBeanMethods = false)
public class CrashAfterPublish {

    private static final Set<Long> ARMED = ConcurrentHashMap.newKeySet();
    private static final Map<Long, long[]> CRASHED = new ConcurrentHashMap<>();

    public static void arm(long couponId) {
        ARMED.add(couponId);
    }

    /** The batch that crashed: {@code [fromCursor, count]}, or null. */
    public static long[] crashedBatch(long couponId) {
        return CRASHED.get(couponId);
    }

    @Bean
    PublishHook crashAfterPublish() {
        return (couponId, fromCursor, count) -> {
            if (ARMED.remove(couponId)) {
                CRASHED.put(couponId, new long[] {fromCursor, count});
                throw new IllegalStateException("injected crash after publishing " + count + " of coupon " + couponId);
            }
        };
    }
}
