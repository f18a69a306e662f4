package com.flashcoupon.worker.issue;

import java.util.Map;
import org.apache.kafka.common.serialization.Serializer;
import org.springframework.kafka.support.serializer.JacksonJsonSerializer;

/**
 * Value serializer of the dead-letter producer: a record whose bytes could not be read is forwarded byte for byte (the
 * recoverer restores the original bytes), a readable one as the same JSON the drainer writes. Public because Kafka
 * instantiates it by class name.
 */
public final class DeadLetterValueSerializer implements Serializer<Object> {

    private final JacksonJsonSerializer<Object> json = new JacksonJsonSerializer<>();

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        json.configure(configs, isKey);
    }

    @Override
    public byte[] serialize(String topic, Object data) {
        return data instanceof byte[] bytes ? bytes : json.serialize(topic, data);
    }

    @Override
    public void close() {
        json.close();
    }
}
