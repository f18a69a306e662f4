package com.flashcoupon.api.support;

import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.RecordSignature;
import com.flashcoupon.contract.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads what the app under test published to one topic, from the beginning, for one test: the drainer's requests
 * ({@link #requested}), the relay's wallet changes, any JSON record type.
 */
public final class TopicRecords<T> implements AutoCloseable {

    private final KafkaConsumer<String, String> consumer;
    private final Class<T> type;
    private final JsonMapper json = JsonMapper.builder().build();
    private final List<Seen<T>> seen = new CopyOnWriteArrayList<>();

    /** A record's value and the value of its {@code fc-sig} header (null when it has none). */
    public record Seen<T>(T value, byte[] signature) {}

    /** @param bootstrapServers the broker of the app under test (not the global embedded-broker property) */
    public TopicRecords(String bootstrapServers, String topic, Class<T> type) {
        this.type = type;
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
        var partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(info -> new TopicPartition(info.topic(), info.partition()))
                .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /** The drainer's records on {@code coupon.issue.requested}. */
    public static TopicRecords<IssueRequested> requested(String bootstrapServers) {
        return new TopicRecords<>(bootstrapServers, Topics.ISSUE_REQUESTED, IssueRequested.class);
    }

    /** Polls once more and returns every record seen so far that matches, in partition order. */
    public List<T> matching(Predicate<T> which) {
        return records(which).stream().map(Seen::value).toList();
    }

    /** As {@link #matching}, each value with its record's signature header. */
    public List<Seen<T>> records(Predicate<T> which) {
        consumer.poll(Duration.ofMillis(300)).forEach(record -> {
            Header signature = record.headers().lastHeader(RecordSignature.HEADER);
            seen.add(new Seen<>(json.readValue(record.value(), type), signature == null ? null : signature.value()));
        });
        return seen.stream().filter(record -> which.test(record.value())).toList();
    }

    @Override
    public void close() {
        consumer.close();
    }
}
