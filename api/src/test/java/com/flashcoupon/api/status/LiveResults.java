package com.flashcoupon.api.status;

import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.contract.Topics;
import java.time.Duration;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * Sends a result on Kafka as the worker does, once this instance's live intake reads the coupon's partition. The intake
 * reads a newly assigned partition from {@link LiveResultIntake#LOOK_BACK} before; on a loaded machine a partition was
 * once assigned later than that after the result was sent, and the result was left to the hub's Redis fallback, which
 * these tests do not write (MemberEventsApiTest failed so in a clean-clone run).
 */
final class LiveResults {

    private LiveResults() {}

    static void send(KafkaTemplate<Object, Object> kafka, LiveResultIntake intake, IssueResult result) {
        int partitions = kafka.partitionsFor(Topics.ISSUE_RESULT).size();
        TopicPartition partition =
                new TopicPartition(Topics.ISSUE_RESULT, LiveResultIntake.partitionOf(result.couponId(), partitions));
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> intake.assigned().contains(partition));
        kafka.send(Topics.ISSUE_RESULT, Topics.key(result.couponId()), result);
    }
}
