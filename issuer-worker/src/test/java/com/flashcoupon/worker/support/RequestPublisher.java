package com.flashcoupon.worker.support;

import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.Topics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import tools.jackson.databind.json.JsonMapper;

/**
 * Plays the api's drainer: publishes {@link IssueRequested} JSON (or any bytes) to the requested topic, keyed by coupon.
 * Everything given to one {@link #send} call is flushed together, so it lands in one producer batch.
 */
public final class RequestPublisher implements AutoCloseable {

    private static final JsonMapper JSON = new JsonMapper();

    private final KafkaProducer<String, byte[]> producer;

    public RequestPublisher(String bootstrapServers) {
        producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrapServers,
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.LINGER_MS_CONFIG,
                        50,
                        ProducerConfig.BATCH_SIZE_CONFIG,
                        1 << 20),
                new StringSerializer(),
                new ByteArraySerializer());
    }

    public static byte[] json(IssueRequested request) {
        return JSON.writeValueAsBytes(request);
    }

    /** A record of the requested topic: the coupon's key and these bytes. */
    public static ProducerRecord<String, byte[]> record(long keyCouponId, byte[] value) {
        return new ProducerRecord<>(Topics.ISSUE_REQUESTED, Topics.key(keyCouponId), value);
    }

    public static ProducerRecord<String, byte[]> record(IssueRequested request) {
        return record(request.couponId(), json(request));
    }

    public void send(List<IssueRequested> requests) {
        sendRecords(requests.stream().map(RequestPublisher::record).toList());
    }

    /** Sends all, then waits until the broker acknowledged all. */
    public void sendRecords(List<ProducerRecord<String, byte[]>> records) {
        List<Future<?>> sends = new ArrayList<>();
        records.forEach(record -> sends.add(producer.send(record)));
        producer.flush();
        for (Future<?> send : sends) {
            try {
                send.get();
            } catch (Exception e) {
                throw new IllegalStateException("test record not published", e);
            }
        }
    }

    @Override
    public void close() {
        producer.close();
    }
}
