package com.flashcoupon.api.support;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A producer interceptor (configured for every {@link ApiTest}) that can hold the broker's acknowledgements back: a
 * slow broker, seen from the drainer. Idle unless a test calls {@link #hold}; held until it calls {@link #release}
 * (a test that fails in between releases them after a minute at most, so the producer of the shared context is not
 * stuck for good).
 */
public class SlowAcks implements ProducerInterceptor<Object, Object> {

    private static volatile CountDownLatch held = new CountDownLatch(0);

    /** Acknowledgements that arrive from now on reach the producer only once {@link #release} was called. */
    public static void hold() {
        held = new CountDownLatch(1);
    }

    /** Lets every held acknowledgement, and the later ones, through. */
    public static void release() {
        held.countDown();
    }

    @Override
    public ProducerRecord<Object, Object> onSend(ProducerRecord<Object, Object> record) {
        return record;
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
        try {
            held.await(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {}

    @Override
    public void configure(Map<String, ?> configs) {}
}
