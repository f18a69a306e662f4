package com.flashcoupon.api.drain;

import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.RecordSignature;
import com.flashcoupon.contract.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * Publishes one batch of a coupon's queue to Kafka, at least once: the cursor advances only after the broker
 * acknowledged the whole batch, so a crash in between publishes the batch again and the worker's unique key turns the
 * repeat into a no-op. The published mark goes to MySQL off this thread ({@link DrainLedger}). Each record carries
 * its signature ({@link RecordSignature}), without which the worker writes nothing for it.
 */
final class BatchPublisher {

    /** The longest wait for Kafka's acknowledgement of a batch: the producer's {@code delivery.timeout.ms}. */
    static final Duration ACK_WAIT = Duration.ofSeconds(30);

    private final StringRedisTemplate redis;
    private final KafkaTemplate<String, Object> kafka;
    private final RecordSignature signature;
    private final DrainLease lease;
    private final DrainLedger ledger;
    private final ObjectProvider<PublishHook> hooks;
    private final Clock clock;
    private final long renewEveryMs;
    private final Counter published;

    BatchPublisher(
            StringRedisTemplate redis,
            KafkaTemplate<String, Object> kafka,
            RecordSignature signature,
            DrainLease lease,
            DrainLedger ledger,
            ObjectProvider<PublishHook> hooks,
            Clock clock,
            Duration leaseTtl,
            MeterRegistry meters) {
        this.redis = redis;
        this.kafka = kafka;
        this.signature = signature;
        this.lease = lease;
        this.ledger = ledger;
        this.hooks = hooks;
        this.clock = clock;
        this.renewEveryMs = Math.max(1, leaseTtl.toMillis() / 3);
        this.published = Counter.builder("coupon.drain.published")
                .description("Admitted requests published to Kafka")
                .register(meters);
    }

    /**
     * Publishes up to {@code count} requests from {@code cursor} and moves the cursor past them.
     *
     * @return how many Kafka acknowledged (0 when the queue had none there)
     * @throws IllegalStateException when Kafka did not acknowledge them all, or the lease was lost: the cursor stays,
     *     and whoever owns the coupon publishes them again
     */
    int publish(long couponId, long cursor, int count, long base, long queued) {
        Set<TypedTuple<String>> entries =
                redis.opsForZSet().rangeWithScores(CouponKeys.queue(couponId), cursor, cursor + count - 1);
        if (entries == null || entries.isEmpty()) {
            return 0;
        }
        long now = clock.millis();
        List<IssueRequested> requests = new ArrayList<>(entries.size());
        String last = null;
        for (TypedTuple<String> entry : entries) {
            requests.add(new IssueRequested(
                    couponId, entry.getValue(), entry.getScore().longValue(), now));
            last = entry.getValue();
        }
        send(couponId, cursor, requests);
        long advanced = lease.advance(couponId, last);
        if (advanced == 0) {
            throw new LeaseLostException(
                    "lost the drain lease before the cursor moved; the batch may be published twice");
        }
        if (advanced < 0) {
            throw new IllegalStateException("the coupon's queue lost the batch's last member (Redis lost or removed"
                    + " its keys) before the cursor moved; the restore puts what MySQL knows back");
        }
        ledger.recordPublished(couponId, base + cursor + entries.size(), base + queued);
        return entries.size();
    }

    /**
     * Signs and sends the batch's records and waits until Kafka acknowledged them all ({@link #awaitAcknowledged});
     * {@code cursor}: what was published of the coupon before them, for the test hooks.
     */
    void send(long couponId, long cursor, List<IssueRequested> requests) {
        List<CompletableFuture<?>> acks = new ArrayList<>(requests.size());
        for (IssueRequested request : requests) {
            var record = new ProducerRecord<String, Object>(Topics.ISSUE_REQUESTED, Topics.key(couponId), request);
            // the worker writes nothing for a record whose signature does not hold (anyone may reach the topic)
            record.headers().add(RecordSignature.HEADER, signature.sign(request));
            acks.add(kafka.send(record));
        }
        awaitAcknowledged(couponId, CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)));
        published.increment(requests.size());
        hooks.ifAvailable(hook -> hook.published(couponId, cursor, requests.size()));
    }

    /**
     * Waits for Kafka to acknowledge the whole batch, at most {@link #ACK_WAIT}, and renews this instance's lease every
     * third of its time-to-live meanwhile. A lease shorter than the wait would otherwise expire while a slow broker
     * holds the batch, another instance would claim the coupon and publish the same batch again (and again, for as
     * long as the broker stays slow). If the lease is lost anyway (Redis unreachable for longer than its
     * time-to-live), the batch is given up: the cursor stays, and whoever owns the coupon publishes it again.
     */
    private void awaitAcknowledged(long couponId, CompletableFuture<Void> acknowledged) {
        long deadline = System.nanoTime() + ACK_WAIT.toNanos();
        while (true) {
            try {
                acknowledged.get(renewEveryMs, TimeUnit.MILLISECONDS);
                return;
            } catch (TimeoutException stillWaiting) {
                if (System.nanoTime() - deadline >= 0) {
                    throw new IllegalStateException(
                            "Kafka did not acknowledge the batch within " + ACK_WAIT + "; it will be published again");
                }
                if (!lease.renew(couponId)) {
                    throw new LeaseLostException("lost the drain lease while waiting for Kafka's acknowledgement");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while publishing", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException(
                        "Kafka did not acknowledge the batch; it will be published again", e.getCause());
            }
        }
    }

    /** The lease lapsed or went to another instance while this one published. */
    static final class LeaseLostException extends IllegalStateException {
        LeaseLostException(String message) {
            super(message);
        }
    }
}
