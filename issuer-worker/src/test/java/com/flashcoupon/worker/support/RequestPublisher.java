package com.flashcoupon.worker.support;

import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.RecordSignature;
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
 * Plays the api's drainer: publishes {@link IssueRequested} JSON, signed with the worker's key as the drainer signs it
 * (or any bytes, unsigned), to the requested topic, keyed by coupon. Everything given to one {@link #send} call is
 * flushed together, so it lands in one producer batch.
 */
public final class RequestPublisher implements AutoCloseable {

    /** The key the worker of the pipeline tests accepts ({@link PipelineTest}), as the api's drainer would sign. */
    public static final String SIGNING_KEY = "worker-test-record-signing-key-0123456789";

    /** What the drainer signs with. */
    public static final RecordSignature SIGNATURE = RecordSignature.of(SIGNING_KEY);

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

    /** A record of the requested topic: the coupon's key and these bytes, without a signature. */
    public static ProducerRecord<String, byte[]> record(long keyCouponId, byte[] value) {
        return new ProducerRecord<>(Topics.ISSUE_REQUESTED, Topics.key(keyCouponId), value);
    }

    /** The request under its own coupon's key, signed as the drainer signs it. */
    public static ProducerRecord<String, byte[]> record(IssueRequested request) {
        return record(request.couponId(), request);
    }

    /** The request under this coupon's key, signed as the drainer signs it. */
    public static ProducerRecord<String, byte[]> record(long keyCouponId, IssueRequested request) {
        return withSignature(record(keyCouponId, json(request)), SIGNATURE.sign(request));
    }

    /** The record with this {@code fc-sig} header value. */
    public static ProducerRecord<String, byte[]> withSignature(
            ProducerRecord<String, byte[]> record, byte[] signature) {
        record.headers().add(RecordSignature.HEADER, signature);
        return record;
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
