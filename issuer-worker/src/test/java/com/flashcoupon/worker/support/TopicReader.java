package com.flashcoupon.worker.support;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a whole topic from its beginning with a plain consumer (no group, so no rebalance to wait for) and keeps what
 * it saw. Call {@link #poll()} inside an Awaitility condition.
 */
public final class TopicReader implements AutoCloseable {

    private final KafkaConsumer<String, byte[]> consumer;
    private final List<ConsumerRecord<String, byte[]>> seen = new CopyOnWriteArrayList<>();

    public TopicReader(String bootstrapServers, String topic) {
        consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrapServers,
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false),
                new StringDeserializer(),
                new ByteArrayDeserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(info -> new TopicPartition(topic, info.partition()))
                .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** Everything read so far, after one more short poll. */
    public synchronized List<ConsumerRecord<String, byte[]>> poll() {
        consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
        return List.copyOf(seen);
    }

    @Override
    public synchronized void close() {
        consumer.close();
    }
}
