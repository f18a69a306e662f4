package com.flashcoupon.api.draw;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * Entry receipts and the seed at rest (issue 33): the admission answer and the status of a member in the window carry a
 * receipt that verifies with the key published at {@code /.well-known/flash-coupon-keys} and in the public record, read
 * with no token; and the seed is not in MySQL in plain text until the draw is recorded.
 */
@ApiTest
@TestPropertySource(properties = {"coupon.draw.check-every=1h", "coupon.drain.tick=1h"})
class EntryReceiptTest extends FairStartTestBase {

    @Test
    @SuppressWarnings("unchecked")
    void shouldGiveAReceiptThatVerifiesWithThePublishedKey() throws Exception {
        long id = fairStart(1);
        Map<String, Object> admitted = ask(id, "receipt-1", 202);
        Map<String, Object> receipt = (Map<String, Object>) admitted.get("receipt");
        byte[] key = jdbc.sql("SELECT pseudonym_key FROM coupon_draw WHERE coupon_id = ?")
                .param(id)
                .query(byte[].class)
                .single();
        assertThat(receipt)
                .containsEntry("couponId", (int) id)
                .containsEntry("pseudonym", DrawRules.pseudonym(key, "receipt-1"));

        Map<String, Object> published = json(client().get()
                .uri("/.well-known/flash-coupon-keys")
                .exchange()
                .expectStatus()
                .isOk());
        List<Map<String, Object>> keys = (List<Map<String, Object>>) published.get("keys");
        Map<String, Object> serviceKey = keys.stream()
                .filter(k -> k.get("keyId").equals(receipt.get("keyId")))
                .findFirst()
                .orElseThrow();
        assertThat(serviceKey).containsEntry("algorithm", "Ed25519");
        PublicKey publicKey = KeyFactory.getInstance("Ed25519")
                .generatePublic(
                        new X509EncodedKeySpec(Base64.getDecoder().decode((String) serviceKey.get("publicKey"))));
        assertThat(verifies(publicKey, receipt, (String) receipt.get("pseudonym")))
                .isTrue();
        assertThat(verifies(publicKey, receipt, DrawRules.pseudonym(key, "someone-else")))
                .as("the receipt says nothing of anyone else")
                .isFalse();

        Map<String, Object> status = status(id, "receipt-1");
        Map<String, Object> again = (Map<String, Object>) status.get("receipt");
        assertThat(again).containsEntry("pseudonym", receipt.get("pseudonym"));
        assertThat(verifies(publicKey, again, (String) again.get("pseudonym"))).isTrue();
        assertThat(json(client().get()
                                .uri("/public/v1/coupons/{id}/draw", id)
                                .exchange()
                                .expectStatus()
                                .isOk())
                        .get("receiptKeys"))
                .isEqualTo(keys);
    }

    @Test
    void shouldKeepTheSeedSealedUntilTheDrawIsRecorded() {
        long id = fairStart(1);
        ask(id, "sealed-1", 202);
        Map<String, Object> before = jdbc.sql("SELECT seed, sealed_seed FROM coupon_draw WHERE coupon_id = ?")
                .param(id)
                .query()
                .singleRow();
        assertThat(before.get("seed")).as("no plain seed before the draw").isNull();
        assertThat((byte[]) before.get("sealed_seed")).hasSize(68);
        endWindow(id);
        Map<String, Object> made = awaitMade(id);
        byte[] revealed = jdbc.sql("SELECT seed FROM coupon_draw WHERE coupon_id = ?")
                .param(id)
                .query(byte[].class)
                .single();
        assertThat(DrawRules.hex(revealed)).isEqualTo(made.get("seed"));
        assertThat(DrawRules.commitment(revealed)).isEqualTo(made.get("commitment"));
    }

    private static boolean verifies(PublicKey key, Map<String, Object> receipt, String pseudonym) throws Exception {
        String message = "flash-coupon entry receipt v1\n" + receipt.get("couponId") + "\n" + pseudonym + "\n"
                + receipt.get("enteredBy") + "\n";
        Signature verifier = Signature.getInstance("Ed25519");
        verifier.initVerify(key);
        verifier.update(message.getBytes(StandardCharsets.UTF_8));
        return verifier.verify(Base64.getUrlDecoder().decode((String) receipt.get("signature")));
    }
}
