package com.flashcoupon.worker.issue;

import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.contract.RecordSignature;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.log.LogAccessor;
import org.springframework.kafka.support.serializer.DeserializationException;
import org.springframework.kafka.support.serializer.SerializationUtils;
import org.springframework.stereotype.Service;

/**
 * Processes one polled batch: throttle, write each coupon's share in its own transaction, record the outcome in
 * Redis, publish one result per record and wait for the acks. Only then does it return, so the container commits the
 * offsets last; a replayed batch writes nothing new and re-emits the same results.
 *
 * <p>A record that can never be written (unreadable, not signed by the api, invalid) ends the batch early: the records before it are completed, then a
 * {@link PoisonRecordException} names its index. Any other failure is a {@link RetryBatchException}.
 */
@Service
class IssueService {

    private static final Logger log = LoggerFactory.getLogger(IssueService.class);
    private static final LogAccessor HEADER_LOG = new LogAccessor(IssueService.class);

    private final CouponIssuer issuer;
    private final ResultStore store;
    private final ResultPublisher publisher;
    private final IssueMetrics metrics;
    private final WriteThrottle throttle;
    private final RecordSignature signature;

    IssueService(
            CouponIssuer issuer,
            ResultStore store,
            ResultPublisher publisher,
            IssueMetrics metrics,
            WriteThrottle throttle,
            RecordSignature signature) {
        this.issuer = issuer;
        this.store = store;
        this.publisher = publisher;
        this.metrics = metrics;
        this.throttle = throttle;
        this.signature = signature;
    }

    void issue(List<ConsumerRecord<String, IssueRequested>> records) {
        metrics.batch(records.size());
        PoisonRecordException poison = firstUnreadable(records);
        int end = poison == null ? records.size() : poison.getIndex();
        try {
            long start = System.nanoTime();
            throttle.acquire(end);
            metrics.throttled(System.nanoTime() - start);
            while (true) {
                try {
                    publisher.publish(write(records.subList(0, end)));
                    break;
                } catch (UnknownCouponException e) {
                    end = firstIndexOf(records, e.couponId());
                    poison = new PoisonRecordException(
                            e.getMessage(), new UnprocessableRecordException(e.getMessage(), e), end);
                }
            }
        } catch (RuntimeException e) {
            boolean transientFailure = TransientFailures.isTransient(e);
            metrics.retried(transientFailure);
            if (transientFailure) {
                log.warn("Batch of {} records not written, will retry: {}", records.size(), e.toString());
            } else {
                log.error("Batch of {} records not written, will retry", records.size(), e);
            }
            throw new RetryBatchException(records.size(), e);
        }
        if (poison != null) {
            metrics.poisonDelivered();
            log.warn("Record {} of the batch can never be written: {}", poison.getIndex(), poison.getMessage());
            throw poison;
        }
    }

    /** Writes each coupon's share of these records and returns one result per record, in record order. */
    private List<IssueResult> write(List<ConsumerRecord<String, IssueRequested>> records) {
        List<IssueRequested> requests =
                records.stream().map(ConsumerRecord::value).toList();
        Map<Long, Map<String, Decision>> decided = new HashMap<>();
        IssuePlan.byCoupon(requests).forEach((couponId, group) -> {
            long start = System.nanoTime();
            Map<String, Decision> decisions = issuer.issue(couponId, group);
            store.record(couponId, decisions.values(), System.nanoTime() - start);
            decided.put(couponId, decisions);
        });
        List<IssueResult> results = new ArrayList<>(requests.size());
        for (IssueRequested request : requests) {
            results.add(decided.get(request.couponId()).get(request.memberId()).toResult(request));
        }
        return results;
    }

    /**
     * The first record that cannot even be read (bytes), is not signed by the api ({@link RecordSignature}: checked
     * before anything else is, so nothing of a forged record is ever written) or has invalid fields; or null.
     */
    private PoisonRecordException firstUnreadable(List<ConsumerRecord<String, IssueRequested>> records) {
        for (int i = 0; i < records.size(); i++) {
            ConsumerRecord<String, IssueRequested> record = records.get(i);
            if (record.value() == null) {
                DeserializationException failure = SerializationUtils.getExceptionFromHeader(
                        record, SerializationUtils.VALUE_DESERIALIZER_EXCEPTION_HEADER, HEADER_LOG);
                Throwable cause = failure != null ? failure : new UnprocessableRecordException("record has no value");
                return new PoisonRecordException("unreadable record: " + cause.getMessage(), cause, i);
            }
            Header signed = record.headers().lastHeader(RecordSignature.HEADER);
            if (!signature.verify(record.value(), signed == null ? null : signed.value())) {
                String why =
                        signed == null ? "no " + RecordSignature.HEADER + " header" : "its signature does not hold";
                return new PoisonRecordException(
                        "forged record, not written: " + why, new ForgedRecordException(why), i);
            }
            var problem = RequestRules.problem(record.value());
            if (problem.isPresent()) {
                return new PoisonRecordException(
                        "invalid request: " + problem.get(), new UnprocessableRecordException(problem.get()), i);
            }
        }
        return null;
    }

    private static int firstIndexOf(List<ConsumerRecord<String, IssueRequested>> records, long couponId) {
        for (int i = 0; i < records.size(); i++) {
            if (records.get(i).value() != null && records.get(i).value().couponId() == couponId) {
                return i;
            }
        }
        throw new IllegalStateException("coupon " + couponId + " is not in the batch");
    }
}
