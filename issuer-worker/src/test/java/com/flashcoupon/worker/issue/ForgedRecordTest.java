package com.flashcoupon.worker.issue;

import static com.flashcoupon.worker.support.RequestPublisher.json;
import static com.flashcoupon.worker.support.RequestPublisher.record;
import static com.flashcoupon.worker.support.RequestPublisher.withSignature;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.contract.IssueResult.Outcome;
import com.flashcoupon.contract.RecordSignature;
import com.flashcoupon.db.Coupon;
import com.flashcoupon.worker.support.PipelineTestSupport;
import com.flashcoupon.worker.support.RequestPublisher;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Security review N5 (the data plane believes whoever writes): anyone who can publish to {@code coupon.issue.requested}
 * once got wallets written, past the queue, the gate and the draw. Now a record whose signature is missing or does
 * not hold under the shared key is dead-lettered, counted, and nothing is written for it (no wallet, no failure row,
 * no Redis status, no result event), while the drainer's signed records around it are issued.
 */
@ExtendWith(OutputCaptureExtension.class)
class ForgedRecordTest extends PipelineTestSupport {

    @Autowired
    MeterRegistry meters;

    private double forged() {
        return meters.counter("coupon.worker.forged").count();
    }

    @Test
    void shouldDeadLetterWithoutWritingEveryRecordWhoseSignatureDoesNotHold(CapturedOutput output) {
        long id = pipeline.newCoupon(10);
        List<IssueRequested> good = List.of(
                new IssueRequested(id, "signed-1", 1, 1_700_000_000_001L),
                new IssueRequested(id, "signed-2", 2, 1_700_000_000_002L),
                new IssueRequested(id, "signed-3", 3, 1_700_000_000_003L));
        IssueRequested unsigned = new IssueRequested(id, "forged-unsigned", 4, 1_700_000_000_004L);
        IssueRequested otherKey = new IssueRequested(id, "forged-other-key", 5, 1_700_000_000_005L);
        byte[] otherKeySignature = RecordSignature.of("an-attacker-key-that-is-long-enough-0123456789")
                .sign(otherKey);
        // a record the drainer did sign, its member changed on the way
        IssueRequested original = new IssueRequested(id, "signed-original", 6, 1_700_000_000_006L);
        IssueRequested changed = new IssueRequested(id, "forged-changed", 6, 1_700_000_000_006L);
        byte[] originalSignature = RequestPublisher.SIGNATURE.sign(original);
        double forgedBefore = forged();

        pipeline.publisher()
                .sendRecords(List.of(
                        record(good.get(0)),
                        record(id, json(unsigned)),
                        record(good.get(1)),
                        withSignature(record(id, json(otherKey)), otherKeySignature),
                        withSignature(record(id, json(changed)), originalSignature),
                        record(good.get(2))));

        await().atMost(PATIENCE).untilAsserted(() -> {
            assertThat(pipeline.results(id)).hasSizeGreaterThanOrEqualTo(3);
            assertThat(pipeline.deadLetters(id)).hasSize(3);
        });
        // a result would be published before its record's dead letter: all of them are in by now
        assertThat(pipeline.results(id))
                .as("results: the signed requests only")
                .extracting(IssueResult::memberId, IssueResult::outcome)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("signed-1", Outcome.ISSUED),
                        org.assertj.core.groups.Tuple.tuple("signed-2", Outcome.ISSUED),
                        org.assertj.core.groups.Tuple.tuple("signed-3", Outcome.ISSUED));
        assertThat(pipeline.wallets(id))
                .extracting(wallet -> wallet.memberId())
                .containsExactlyInAnyOrder("signed-1", "signed-2", "signed-3");
        assertThat(pipeline.failures(id)).as("failure rows").isEmpty();
        assertThat(pipeline.statuses(id)).as("Redis statuses").containsOnlyKeys("signed-1", "signed-2", "signed-3");
        assertThat(pipeline.done(id)).isEqualTo(3);
        Coupon coupon = pipeline.coupon(id);
        assertThat(coupon.issuedCount()).isEqualTo(3);
        assertThat(coupon.failedCount()).isZero();
        assertThat(coupon.deadLetteredCount())
                .as("the event's own dead-letter counter counts the drainer's records only")
                .isZero();

        List<ConsumerRecord<String, byte[]>> deadLetters = pipeline.deadLetters(id);
        assertThat(deadLetters)
                .extracting(letter -> new String(letter.value(), StandardCharsets.UTF_8))
                .containsExactly(
                        new String(json(unsigned), StandardCharsets.UTF_8),
                        new String(json(otherKey), StandardCharsets.UTF_8),
                        new String(json(changed), StandardCharsets.UTF_8));
        assertThat(deadLetters)
                .allSatisfy(letter -> assertThat(new String(
                                letter.headers()
                                        .lastHeader("kafka_dlt-exception-stacktrace")
                                        .value(),
                                StandardCharsets.UTF_8))
                        .contains(ForgedRecordException.class.getName()));
        assertThat(forged() - forgedBefore).isEqualTo(3);

        assertThat(output.getAll())
                .contains("Dead-lettered forged record")
                .doesNotContain(RequestPublisher.SIGNING_KEY)
                .doesNotContain(new String(otherKeySignature, StandardCharsets.US_ASCII))
                .doesNotContain(new String(originalSignature, StandardCharsets.US_ASCII));
    }
}
