package com.flashcoupon.worker.issue;

import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.Topics;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/** Receives polled batches of admitted requests; the offsets are committed when it returns. */
@Component
class IssueRequestListener {

    private final IssueService issues;

    IssueRequestListener(IssueService issues) {
        this.issues = issues;
    }

    @KafkaListener(id = "coupon-issuer", idIsGroup = false, topics = Topics.ISSUE_REQUESTED, batch = "true")
    void onRequests(List<ConsumerRecord<String, IssueRequested>> records) {
        issues.issue(records);
    }
}
