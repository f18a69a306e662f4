package com.flashcoupon.worker.issue;

import com.flashcoupon.contract.FailureReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Component;

/** The worker's meters; each is counted after the MySQL commit (or the dead-letter send) it describes. */
@Component
class IssueMetrics {

    private final MeterRegistry registry;
    private final Counter issued;
    private final Counter deadLettered;
    private final Counter poison;
    private final Counter forged;
    private final DistributionSummary batchSize;
    private final Timer writeLatency;
    private final Timer throttleWait;

    IssueMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.issued = Counter.builder("coupon.worker.issued")
                .description("Wallet rows written")
                .register(registry);
        this.deadLettered = Counter.builder("coupon.worker.dead.lettered")
                .description("Requested records sent to the dead-letter topic")
                .register(registry);
        this.poison = Counter.builder("coupon.worker.poison")
                .description("Deliveries of records that can never be written (each retry counts)")
                .register(registry);
        this.forged = Counter.builder("coupon.worker.forged")
                .description("Requested records dead-lettered without a write because their signature is missing or"
                        + " does not hold (not published by the api)")
                .register(registry);
        this.batchSize = DistributionSummary.builder("coupon.worker.batch.size")
                .description("Records per polled batch")
                .baseUnit("records")
                .publishPercentileHistogram()
                .register(registry);
        this.writeLatency = Timer.builder("coupon.worker.write.latency")
                .description("One coupon's MySQL transaction: lock, wallets, counters, read-back")
                .publishPercentileHistogram()
                .register(registry);
        this.throttleWait = Timer.builder("coupon.worker.throttle.wait")
                .description("Time a batch waited for write-rate tokens")
                .register(registry);
        for (FailureReason reason : FailureReason.values()) {
            failedCounter(reason); // every series exists from the start, at 0
        }
    }

    void batch(int size) {
        batchSize.record(size);
    }

    void throttled(long nanos) {
        throttleWait.record(nanos, TimeUnit.NANOSECONDS);
    }

    void written(int issuedRows, FailureReason reason, int failedRows, long nanos) {
        issued.increment(issuedRows);
        if (failedRows > 0) {
            failed(reason, failedRows);
        }
        writeLatency.record(nanos, TimeUnit.NANOSECONDS);
    }

    void poisonDelivered() {
        poison.increment();
    }

    void forged() {
        forged.increment();
    }

    void deadLettered() {
        deadLettered.increment();
    }

    void retried(boolean transientFailure) {
        registry.counter("coupon.worker.retries", "kind", transientFailure ? "transient" : "unexpected")
                .increment();
    }

    private void failed(FailureReason reason, int n) {
        failedCounter(reason).increment(n);
    }

    private Counter failedCounter(FailureReason reason) {
        return Counter.builder("coupon.worker.failed")
                .description("Requests that ended FAILED, by reason")
                .tag("reason", reason.name())
                .register(registry);
    }
}
