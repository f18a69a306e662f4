package com.flashcoupon.api.support;

import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import tools.jackson.databind.json.JsonMapper;

/** Reads what the drainer published to {@code coupon.issue.requested}, from the beginning, for one test. */
public final class RequestedRecords implements AutoCloseable {

    private final KafkaConsumer<String, String> consumer;
    private final JsonMapper json = JsonMapper.builder().build();
    private final List<IssueRequested> seen = new CopyOnWriteArrayList<>();

    /** @param bootstrapServers the broker of the app under test (not the global embedded-broker property) */
    public RequestedRecords(String bootstrapServers) {
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class));
        // assigned, not subscribed: no group rebalance to wait for
        var partitions = consumer.partitionsFor(Topics.ISSUE_REQUESTED, Duration.ofSeconds(30)).stream()
                .map(info -> new TopicPartition(info.topic(), info.partition()))
                .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** Polls once more and returns every record of this coupon seen so far, in partition order. */
    public List<IssueRequested> of(long couponId) {
        consumer.poll(Duration.ofMillis(300))
                .forEach(record -> seen.add(json.readValue(record.value(), IssueRequested.class)));
        return seen.stream().filter(r -> r.couponId() == couponId).toList();
    }

    @Override
    public void close() {
        consumer.close();
    }
}
