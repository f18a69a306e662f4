package com.flashcoupon.api.support;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A producer interceptor (configured for every {@link ApiTest}) that can hold the broker's acknowledgements back for
 * a while: a slow broker, seen from the drainer. Idle unless a test calls {@link #holdFor}.
 */
public class SlowAcks implements ProducerInterceptor<Object, Object> {

    private static volatile long holdUntil;

    /** Acknowledgements that arrive from now on reach the producer only after this long from now. */
    public static void holdFor(Duration duration) {
        holdUntil = System.nanoTime() + duration.toNanos();
    }

    @Override
    public ProducerRecord<Object, Object> onSend(ProducerRecord<Object, Object> record) {
        return record;
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
        long wait = holdUntil - System.nanoTime();
        if (wait > 0) {
            try {
                Thread.sleep(Duration.ofNanos(wait));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {}

    @Override
    public void configure(Map<String, ?> configs) {}
}
