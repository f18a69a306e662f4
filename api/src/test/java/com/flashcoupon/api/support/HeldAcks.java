package com.flashcoupon.api.support;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A producer interceptor for an {@link ApiInstance} whose path to the broker's acknowledgements is cut: every
 * acknowledgement is held until {@link #release} (two minutes at most), while the records themselves and the broker's
 * metadata get through. Unlike {@link SlowAcks}, it leaves the shared test context's producer alone.
 */
public class HeldAcks implements ProducerInterceptor<Object, Object> {

    private static volatile CountDownLatch held = new CountDownLatch(1);
    private static final Set<Object> SENT = ConcurrentHashMap.newKeySet();

    /** Holds every acknowledgement from now on. */
    public static void hold() {
        held = new CountDownLatch(1);
    }

    /** Lets every held acknowledgement, and the later ones, through. */
    public static void release() {
        held.countDown();
    }

    /** Whether a record with this key was sent through an instance configured with this interceptor. */
    public static boolean sent(Object key) {
        return SENT.contains(key);
    }

    @Override
    public ProducerRecord<Object, Object> onSend(ProducerRecord<Object, Object> record) {
        if (record.key() != null) {
            SENT.add(record.key());
        }
        return record;
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
        try {
            held.await(2, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {}

    @Override
    public void configure(Map<String, ?> configs) {}
}
