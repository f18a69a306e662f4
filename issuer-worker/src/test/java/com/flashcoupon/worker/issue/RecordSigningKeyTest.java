package com.flashcoupon.worker.issue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.flashcoupon.contract.RecordSignature;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/** The worker's record key: required outside the local profile, as the api's is, and never the public local one. */
class RecordSigningKeyTest {

    private final IssueKafkaConfig config = new IssueKafkaConfig();

    @Test
    void shouldRefuseToStartWithoutAKeyOfItsOwnOutsideTheLocalProfile() {
        var deployed = new MockEnvironment();

        assertThatThrownBy(() -> config.recordSignature("", deployed))
                .hasMessageContaining("COUPON_RECORD_SIGNING_KEY");
        assertThatThrownBy(() -> config.recordSignature(RecordSignature.LOCAL_KEY, deployed))
                .hasMessageContaining("public local default");
    }

    @Test
    void shouldCheckTheApisLocalSignaturesInTheLocalProfile() {
        var local = new MockEnvironment();
        local.setActiveProfiles("local");
        var request = new com.flashcoupon.contract.IssueRequested(1, "m-1", 1, 1);

        RecordSignature worker = config.recordSignature("", local);

        assertThat(worker.verify(
                        request,
                        RecordSignature.fromSetting(RecordSignature.LOCAL_KEY, true)
                                .sign(request)))
                .isTrue();
    }
}
