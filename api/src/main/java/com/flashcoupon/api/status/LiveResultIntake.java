package com.flashcoupon.api.status;

import com.flashcoupon.api.health.OutageLog;
import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.contract.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Reads the result topic's partitions that hold the coupons this instance has live streams for, and no other.
 *
 * <p>Before (issue 27), every instance read every result in a consumer group of its own: the brokers served the
 * result rate times the instance count, and each instance parsed every result of every coupon to find the few its
 * streams wait for. Now an instance with no stream reads nothing, and one with streams reads the partitions of those
 * coupons only (results are keyed by coupon, so a coupon's results are on one partition, found with the producer's
 * own partitioner). Records of other coupons on the same partition are skipped by key, before any JSON is parsed.
 * Partitions are assigned, not subscribed: no consumer group, no rebalance when instances come and go, nothing
 * committed.
 *
 * <p>A partition newly assigned starts at the first record written {@link #LOOK_BACK} before, so a result written
 * between a stream's opening and the assignment is not missed; anything older is covered by the hub's Redis fallback
 * for streams whose turn has passed, as before.
 */
final class LiveResultIntake implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(LiveResultIntake.class);

    /** How far back a newly assigned partition starts: well over the time from a stream's opening to its assignment. */
    static final Duration LOOK_BACK = Duration.ofSeconds(5);

    /** The longest an idle instance (no stream) waits before it looks at its streams again. */
    private static final Duration IDLE = Duration.ofMillis(100);

    private static final Duration POLL = Duration.ofMillis(100);

    /**
     * How long a partition stays assigned after its last stream closed: streams of one coupon come and go all through
     * an event, and each new assignment reads {@link #LOOK_BACK} of the partition again.
     */
    static final Duration LINGER = Duration.ofSeconds(30);

    /** How often the partition count is read again (it changes only when an operator adds partitions). */
    private static final long PARTITIONS_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final Map<String, Object> consumerConfig;
    private final Supplier<Set<Long>> streamedCoupons;
    private final Function<String, IssueResult> reader;
    private final Consumer<IssueResult> sink;
    private final String name;
    private final Counter read;
    private final Counter delivered;
    private final OutageLog outage = new OutageLog(log, "reading live results");
    private volatile Set<TopicPartition> assigned = Set.of();
    private final Map<TopicPartition, Long> lastWanted = new HashMap<>();
    private volatile boolean running;
    private volatile KafkaConsumer<String, String> consumer;
    private Thread thread;
    private int partitions;
    private long partitionsReadAt;

    /**
     * @param consumerConfig the Kafka consumer's settings (a group id in it is dropped: nothing is committed)
     * @param streamedCoupons the coupons this instance has open streams for, read before every poll
     * @param reader a result's JSON to the result; a record it cannot read is logged and skipped
     * @param sink where results for streamed coupons go
     */
    LiveResultIntake(
            Map<String, Object> consumerConfig,
            Supplier<Set<Long>> streamedCoupons,
            Function<String, IssueResult> reader,
            Consumer<IssueResult> sink,
            String name,
            MeterRegistry meters) {
        Map<String, Object> config = new HashMap<>(consumerConfig);
        config.remove(ConsumerConfig.GROUP_ID_CONFIG);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        this.consumerConfig = config;
        this.streamedCoupons = streamedCoupons;
        this.reader = reader;
        this.sink = sink;
        this.name = name;
        this.read = Counter.builder("coupon.live.results.read")
                .description("Result records this instance fetched for its live streams (any coupon on the"
                        + " partitions it reads)")
                .register(meters);
        this.delivered = Counter.builder("coupon.live.results.delivered")
                .description("Results of coupons this instance streams, handed to the streams")
                .register(meters);
        Gauge.builder("coupon.live.results.partitions", this, intake -> intake.assigned.size())
                .description("Partitions of the result topic this instance reads (those of its streamed coupons)")
                .register(meters);
    }

    /** The partitions read now (for tests and the gauge). */
    Set<TopicPartition> assigned() {
        return assigned;
    }

    /** The partition a coupon's results are on, with {@code partitions} partitions: the producer's own choice. */
    static int partitionOf(long couponId, int partitions) {
        return Utils.toPositive(Utils.murmur2(Topics.key(couponId).getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    private void run() {
        try (KafkaConsumer<String, String> kafka = new KafkaConsumer<>(consumerConfig)) {
            consumer = kafka;
            while (running) {
                try {
                    step(kafka);
                    outage.succeeded();
                } catch (WakeupException stopping) {
                    return;
                } catch (RuntimeException e) {
                    outage.failed(Topics.ISSUE_RESULT, e);
                    pause(Duration.ofMillis(500));
                }
            }
        } catch (WakeupException stopping) {
            // closed while stopping
        }
    }

    private void step(KafkaConsumer<String, String> kafka) {
        Set<Long> coupons = streamedCoupons.get();
        Set<TopicPartition> wanted = withLingering(coupons.isEmpty() ? Set.of() : partitionsOf(kafka, coupons));
        if (!wanted.equals(assigned)) {
            assign(kafka, wanted);
        }
        if (wanted.isEmpty()) {
            pause(IDLE);
            return;
        }
        for (ConsumerRecord<String, String> record : kafka.poll(POLL)) {
            read.increment();
            if (record.key() == null || !coupons.contains(couponOf(record.key()))) {
                continue; // another coupon on the same partition: not parsed
            }
            try {
                sink.accept(reader.apply(record.value()));
                delivered.increment();
            } catch (RuntimeException e) {
                log.warn(
                        "unreadable result at {}-{}@{}: {}",
                        record.topic(),
                        record.partition(),
                        record.offset(),
                        e.toString());
            }
        }
    }

    private Set<TopicPartition> partitionsOf(KafkaConsumer<String, String> kafka, Set<Long> coupons) {
        if (partitions == 0 || System.nanoTime() - partitionsReadAt > PARTITIONS_REFRESH_NANOS) {
            List<PartitionInfo> infos = kafka.partitionsFor(Topics.ISSUE_RESULT);
            partitions = infos == null ? 0 : infos.size();
            partitionsReadAt = System.nanoTime();
        }
        if (partitions == 0) {
            return Set.of(); // no topic yet: nothing can be on it
        }
        Set<TopicPartition> wanted = new HashSet<>();
        for (long coupon : coupons) {
            wanted.add(new TopicPartition(Topics.ISSUE_RESULT, partitionOf(coupon, partitions)));
        }
        return wanted;
    }

    /** The partitions wanted now, and those wanted within {@link #LINGER}. */
    private Set<TopicPartition> withLingering(Set<TopicPartition> wanted) {
        long now = System.nanoTime();
        wanted.forEach(partition -> lastWanted.put(partition, now));
        lastWanted.values().removeIf(at -> now - at > LINGER.toNanos());
        return Set.copyOf(lastWanted.keySet());
    }

    private void assign(KafkaConsumer<String, String> kafka, Set<TopicPartition> wanted) {
        Set<TopicPartition> added = new HashSet<>(wanted);
        added.removeAll(assigned);
        kafka.assign(wanted);
        if (!added.isEmpty()) {
            long since = System.currentTimeMillis() - LOOK_BACK.toMillis();
            Map<TopicPartition, Long> times = new HashMap<>();
            added.forEach(partition -> times.put(partition, since));
            Map<TopicPartition, OffsetAndTimestamp> offsets = kafka.offsetsForTimes(times);
            Set<TopicPartition> toEnd = new HashSet<>();
            for (TopicPartition partition : added) {
                OffsetAndTimestamp offset = offsets.get(partition);
                if (offset == null) {
                    toEnd.add(partition); // nothing written since: from the end
                } else {
                    kafka.seek(partition, offset.offset());
                }
            }
            if (!toEnd.isEmpty()) {
                kafka.seekToEnd(toEnd);
                toEnd.forEach(kafka::position); // resolved now, not at the next poll (a record in between counts)
            }
        }
        assigned = Set.copyOf(wanted);
        log.debug("{} reads {}", name, assigned);
    }

    private static long couponOf(String key) {
        try {
            return Long.parseLong(key);
        } catch (NumberFormatException e) {
            return Long.MIN_VALUE;
        }
    }

    private void pause(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        thread = Thread.ofPlatform().name(name).daemon().start(this::run);
    }

    @Override
    public synchronized void stop() {
        running = false;
        KafkaConsumer<String, String> kafka = consumer;
        if (kafka != null) {
            kafka.wakeup();
        }
        if (thread != null) {
            try {
                thread.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            thread = null;
        }
        assigned = Set.of();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Before the web server (Spring Boot starts it at DEFAULT_PHASE - 2048): streams are served with the intake on. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 4096;
    }
}
