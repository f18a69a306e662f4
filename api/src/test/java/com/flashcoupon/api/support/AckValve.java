package com.flashcoupon.api.support;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A producer interceptor that holds the broker's acknowledgements back while its valve is closed, and lets them
 * through once it opens (or after {@code longest}, so that a test failing in between leaves no producer stuck for
 * good). Kafka creates interceptors by class name, so each use is a subclass with a valve of its own: {@link SlowAcks}
 * on the shared test context's producer, {@link HeldAcks} on one {@link ApiInstance}'s.
 */
abstract class AckValve implements ProducerInterceptor<Object, Object> {

    /** Open or closed; closing it again later holds the acknowledgements that arrive from then on. */
    static final class Valve {

        private volatile CountDownLatch closed;

        Valve(boolean open) {
            closed = new CountDownLatch(open ? 0 : 1);
        }

        void close() {
            closed = new CountDownLatch(1);
        }

        void open() {
            closed.countDown();
        }
    }

    private final Valve valve;
    private final Duration longest;

    AckValve(Valve valve, Duration longest) {
        this.valve = valve;
        this.longest = longest;
    }

    @Override
    public ProducerRecord<Object, Object> onSend(ProducerRecord<Object, Object> record) {
        return record;
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
        try {
            valve.closed.await(longest.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {}

    @Override
    public void configure(Map<String, ?> configs) {}
}
