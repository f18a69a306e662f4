package com.flashcoupon.worker.issue;

import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.contract.Topics;
import com.flashcoupon.worker.config.WorkerProperties;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.kafka.KafkaException;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Component;

/** Publishes result events keyed by coupon and waits until the broker acknowledged every one of them. */
@Component
class ResultPublisher {

    private final KafkaTemplate<String, IssueResult> results;
    private final Duration ackTimeout;

    ResultPublisher(KafkaTemplate<String, IssueResult> issueResultTemplate, WorkerProperties worker) {
        this.results = issueResultTemplate;
        this.ackTimeout = worker.resultAckTimeout();
    }

    void publish(List<IssueResult> events) {
        if (events.isEmpty()) {
            return;
        }
        CompletableFuture<?>[] sends = events.stream()
                .map(event -> results.send(Topics.ISSUE_RESULT, Topics.key(event.couponId()), event))
                .toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.allOf(sends).get(ackTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while waiting for result acks", e);
        } catch (ExecutionException e) {
            throw new KafkaException("the broker refused result events", e.getCause());
        } catch (TimeoutException e) {
            throw new KafkaException("no ack for " + events.size() + " result events within " + ackTimeout, e);
        }
    }
}
