package com.flashcoupon.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class RecordSignatureTest {

    private static final String KEY = "a-record-signing-key-of-at-least-32-bytes";
    private static final String OTHER_KEY = "another-record-signing-key-of-32-bytes-or-more";
    private static final IssueRequested REQUEST = new IssueRequested(42, "member-7", 3, 1_700_000_000_123L);

    @Test
    void shouldWriteTheCanonicalFormAsDocumented() {
        byte[] form = RecordSignature.canonical(REQUEST);

        String expected = HexFormat.of().formatHex("flash-coupon/IssueRequested/v1\0".getBytes(StandardCharsets.UTF_8))
                + "000000000000002a" // coupon 42
                + "0000000000000003" // sequence 3
                + "0000018bcfe5687b" // published at 1,700,000,000,123 ms
                + "00000008" // member id: 8 bytes
                + HexFormat.of().formatHex("member-7".getBytes(StandardCharsets.UTF_8));
        assertThat(HexFormat.of().formatHex(form)).isEqualTo(expected);
    }

    @Test
    void shouldGiveEveryFieldItsOwnPlaceInTheCanonicalForm() {
        List<IssueRequested> neighbours = List.of(
                new IssueRequested(43, "member-7", 3, 1_700_000_000_123L),
                new IssueRequested(42, "member-8", 3, 1_700_000_000_123L),
                new IssueRequested(42, "member-7", 4, 1_700_000_000_123L),
                new IssueRequested(42, "member-7", 3, 1_700_000_000_124L),
                new IssueRequested(42, "member-7\0", 3, 1_700_000_000_123L),
                new IssueRequested(42, "", 3, 1_700_000_000_123L),
                new IssueRequested(42, null, 3, 1_700_000_000_123L));

        for (IssueRequested neighbour : neighbours) {
            assertThat(RecordSignature.canonical(neighbour))
                    .as("%s", neighbour)
                    .isNotEqualTo(RecordSignature.canonical(REQUEST));
        }
        assertThat(RecordSignature.canonical(new IssueRequested(42, "", 3, 1)))
                .isNotEqualTo(RecordSignature.canonical(new IssueRequested(42, null, 3, 1)));
    }

    @Test
    void shouldSignWithHmacSha256OfTheCanonicalFormInBase64Url() throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(KEY.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        String expected = java.util.Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(mac.doFinal(RecordSignature.canonical(REQUEST)));

        byte[] signature = RecordSignature.of(KEY).sign(REQUEST);

        assertThat(new String(signature, StandardCharsets.US_ASCII))
                .isEqualTo(expected)
                .hasSize(43);
    }

    @Test
    void shouldAcceptItsOwnSignatureAndNothingElse() {
        RecordSignature signer = RecordSignature.of(KEY);
        byte[] signature = signer.sign(REQUEST);

        assertThat(signer.verify(REQUEST, signature)).isTrue();
        assertThat(signer.verify(REQUEST, null)).as("no header").isFalse();
        assertThat(signer.verify(REQUEST, new byte[0])).as("an empty header").isFalse();
        assertThat(signer.verify(REQUEST, "not base64 !".getBytes(StandardCharsets.US_ASCII)))
                .isFalse();
        assertThat(signer.verify(REQUEST, RecordSignature.of(OTHER_KEY).sign(REQUEST)))
                .as("another key's signature")
                .isFalse();
        assertThat(signer.verify(new IssueRequested(42, "member-8", 3, 1_700_000_000_123L), signature))
                .as("the signature of another member")
                .isFalse();
        assertThat(signer.verify(new IssueRequested(42, "member-7", 4, 1_700_000_000_123L), signature))
                .as("another sequence")
                .isFalse();
        byte[] truncated = java.util.Arrays.copyOf(signature, signature.length - 1);
        assertThat(signer.verify(REQUEST, truncated))
                .as("a truncated signature")
                .isFalse();
    }

    @Test
    void shouldSignWithTheFirstKeyAndAcceptEveryKeyDuringARotation() {
        RecordSignature rotating = RecordSignature.fromSetting(OTHER_KEY + " , " + KEY, false);

        assertThat(rotating.keyCount()).isEqualTo(2);
        assertThat(rotating.sign(REQUEST))
                .isEqualTo(RecordSignature.of(OTHER_KEY).sign(REQUEST));
        assertThat(rotating.verify(REQUEST, RecordSignature.of(KEY).sign(REQUEST)))
                .as("signed with the old key")
                .isTrue();
        assertThat(rotating.verify(REQUEST, RecordSignature.of(OTHER_KEY).sign(REQUEST)))
                .as("signed with the new key")
                .isTrue();
        assertThat(RecordSignature.of(KEY).verify(REQUEST, rotating.sign(REQUEST)))
                .as("a worker that has not learnt the new key yet")
                .isFalse();
    }

    @Test
    void shouldRequireAKeyOfItsOwnOutsideTheLocalProfile() {
        assertThatThrownBy(() -> RecordSignature.fromSetting("", false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("COUPON_RECORD_SIGNING_KEY");
        assertThatThrownBy(() -> RecordSignature.fromSetting(null, false)).hasMessageContaining("Set COUPON_RECORD");
        assertThatThrownBy(() -> RecordSignature.fromSetting(RecordSignature.LOCAL_KEY, false))
                .hasMessageContaining("public local default");
        assertThatThrownBy(() -> RecordSignature.fromSetting(KEY + "," + RecordSignature.LOCAL_KEY, false))
                .hasMessageContaining("public local default");
        String shortKey = "short-key-31-bytes-long-0123456";
        assertThatThrownBy(() -> RecordSignature.fromSetting(shortKey, false))
                .hasMessageContaining("at least 32")
                .hasMessageNotContaining(shortKey);
        assertThatThrownBy(() -> RecordSignature.fromSetting(KEY + ",", false))
                .as("an empty second key")
                .hasMessageContaining("key 2 of 2");
    }

    @Test
    void shouldUseThePublicLocalKeyOnlyInTheLocalProfile() {
        RecordSignature local = RecordSignature.fromSetting("", true);

        assertThat(local.verify(
                        REQUEST,
                        RecordSignature.fromSetting(RecordSignature.LOCAL_KEY, true)
                                .sign(REQUEST)))
                .as("every local process shares the public key")
                .isTrue();
        assertThat(local.toString()).doesNotContain(RecordSignature.LOCAL_KEY);
    }
}
