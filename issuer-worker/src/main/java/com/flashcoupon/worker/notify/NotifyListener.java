package com.flashcoupon.worker.notify;

import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.contract.Topics;
import org.springframework.kafka.annotation.KafkaListener;

/** The notifier's own consumer group on the result topic; an offset is committed after its record was handled. */
class NotifyListener {

    static final String GROUP = "coupon-notifier";

    private final Notifier notifier;

    NotifyListener(Notifier notifier) {
        this.notifier = notifier;
    }

    @KafkaListener(id = GROUP, topics = Topics.ISSUE_RESULT, containerFactory = "notifyContainerFactory")
    void onResult(IssueResult result) throws InterruptedException {
        notifier.notify(result);
    }
}
