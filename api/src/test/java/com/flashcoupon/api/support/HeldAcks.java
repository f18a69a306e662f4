package com.flashcoupon.api.support;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A producer interceptor for an {@link ApiInstance} whose path to the broker's acknowledgements is cut: every
 * acknowledgement is held until {@link #release} (two minutes at most), while the records themselves and the broker's
 * metadata get through. Unlike {@link SlowAcks}, it leaves the shared test context's producer alone, and it remembers
 * the keys it saw sent.
 */
public class HeldAcks extends AckValve {

    private static final Valve VALVE = new Valve(false);
    private static final Set<Object> SENT = ConcurrentHashMap.newKeySet();

    public HeldAcks() {
        super(VALVE, Duration.ofMinutes(2));
    }

    /** Holds every acknowledgement from now on. */
    public static void hold() {
        VALVE.close();
    }

    /** Lets every held acknowledgement, and the later ones, through. */
    public static void release() {
        VALVE.open();
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
}
