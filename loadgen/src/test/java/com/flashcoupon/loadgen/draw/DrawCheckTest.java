package com.flashcoupon.loadgen.draw;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The checker against the worked example of docs/architecture.md ("A draw anyone can check": seed bytes 0 to 31,
 * entrants m-1, m-10, m-2, m-3, m-4, three coupons), as published, then with one thing changed at a time.
 */
class DrawCheckTest {

    private static final String SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    private static final String COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd";
    private static final String DIGEST = "bcc786024cb8325592320742b593a12cf411ebac67314e8b2901ae736a099542";

    private static final DrawCheck.Published PUBLISHED =
            new DrawCheck.Published(42, 3, COMMITMENT, SEED, DIGEST, 5, 3, 1, null);

    /** The export's lines: places 1, 2, 3 to m-2, m-10, m-3 (their tickets are the lowest). */
    private static List<DrawCheck.Entrant> entrants() {
        return new ArrayList<>(List.of(
                new DrawCheck.Entrant(
                        "m-1", "848389279144f5504a3f5c4eaac1f1a82a7af8e0f9b40458a85e004eaeaa6f5c", 0, null, null),
                new DrawCheck.Entrant(
                        "m-10", "5ff25b752b91d7771a2ebc90a19c8ec0b5ab538fbd60556f7c821420b9ab9180", 2, 902L, null),
                new DrawCheck.Entrant(
                        "m-2", "1f902b6199633c3d16b6d4c38950d7d04df55df6fc3555e4604348a9ab0ebe9d", 1, 901L, null),
                new DrawCheck.Entrant(
                        "m-3", "6c04511580ec60eb6d4691664ee535cc1a295a1c7c1703a7f852641a0e1e21df", 3, null, null),
                new DrawCheck.Entrant(
                        "m-4", "bd546c8e9862de4a46f8c6956d81f8f96e0692b51c0817755ce01d6704722bdf", 0, null, null)));
    }

    private static List<DrawCheck.Wallet> wallets() {
        return new ArrayList<>(List.of(
                new DrawCheck.Wallet("m-2", 1), new DrawCheck.Wallet("m-10", 2), new DrawCheck.Wallet("late", 4)));
    }

    @Test
    void shouldFindNothingWhenEverythingIsAsPublished() {
        assertThat(DrawCheck.differences(PUBLISHED, entrants(), wallets())).isEmpty();
    }

    @Test
    void shouldNameTheEntrantWhenOneTicketIsChanged() {
        List<DrawCheck.Entrant> entrants = entrants();
        DrawCheck.Entrant m3 = entrants.get(3);
        entrants.set(3, new DrawCheck.Entrant(m3.member(), "0" + m3.ticket().substring(1), 3, null, null));

        assertThat(DrawCheck.differences(PUBLISHED, entrants, wallets()))
                .singleElement()
                .asString()
                .startsWith("m-3's ticket is 6c0451");
    }

    @Test
    void shouldFailTheCommitmentWhenOneSeedByteIsChanged() {
        var tampered = new DrawCheck.Published(42, 3, COMMITMENT, "01" + SEED.substring(2), DIGEST, 5, 3, 1, null);

        List<String> differences = DrawCheck.differences(tampered, entrants(), wallets());
        assertThat(differences.getFirst()).contains("not the commitment published at creation");
        assertThat(differences).hasSizeGreaterThan(1); // every ticket differs too
    }

    @Test
    void shouldFailWhenOneWinnerIsChanged() {
        List<DrawCheck.Entrant> entrants = entrants();
        // m-4 given m-3's place
        entrants.set(3, new DrawCheck.Entrant("m-3", entrants.get(3).ticket(), 0, null, null));
        entrants.set(4, new DrawCheck.Entrant("m-4", entrants.get(4).ticket(), 3, null, null));

        assertThat(DrawCheck.differences(PUBLISHED, entrants, wallets()))
                .containsExactly(
                        "m-3 should be place 3, the export says left out",
                        "m-4 should be left out, the export says place 3");
    }

    @Test
    void shouldFailWhenSomeoneTheDrawLeftOutHoldsAWalletCoupon() {
        List<DrawCheck.Wallet> wallets = wallets();
        wallets.add(new DrawCheck.Wallet("m-4", 3));
        List<DrawCheck.Entrant> entrants = entrants();
        entrants.set(4, new DrawCheck.Entrant("m-4", entrants.get(4).ticket(), 0, 903L, null));

        assertThat(DrawCheck.differences(PUBLISHED, entrants, wallets))
                .containsExactly(
                        "m-4 was left out by the draw but holds wallet coupon 903",
                        "m-4 was left out by the draw but holds a wallet coupon (sequence 3)");
    }

    @Test
    void shouldFailWhenAWalletIsAtAnotherPlacesSequenceOrAnOutsiderHoldsADrawPlace() {
        List<DrawCheck.Wallet> wallets = wallets();
        wallets.set(1, new DrawCheck.Wallet("m-10", 3));
        wallets.add(new DrawCheck.Wallet("outsider", 2));

        assertThat(DrawCheck.differences(PUBLISHED, entrants(), wallets))
                .containsExactly(
                        "m-10 holds a wallet coupon at sequence 3, not at 2 (place 2)",
                        "outsider never entered the draw but holds a wallet coupon at sequence 2, one of the draw's"
                                + " places");
    }

    @Test
    void shouldFailWhenTheEntrantListIsNotTheOneDigested() {
        List<DrawCheck.Entrant> entrants = entrants();
        entrants.remove(0);

        List<String> differences = DrawCheck.differences(PUBLISHED, entrants, wallets());
        assertThat(differences.get(0)).isEqualTo("the export lists 4 entrants, the draw says 5");
        assertThat(differences.get(1)).startsWith("the entrants' SHA-256 is");
    }

    @Test
    void shouldFailWhenTheDrawPlacedFewerThanItHadCoupons() {
        var fewer = new DrawCheck.Published(42, 4, COMMITMENT, SEED, DIGEST, 5, 3, 1, null);

        assertThat(DrawCheck.differences(fewer, entrants(), wallets()).getFirst())
                .isEqualTo("the draw placed 3 of 5 entrants for 4 coupons; it should have placed 4");
    }

    @Test
    void shouldReadAnExportLine() {
        assertThat(VerifyDrawCommand.entrant("m-1\tabcd\t-\t-\t-"))
                .isEqualTo(new DrawCheck.Entrant("m-1", "abcd", 0, null, null));
        assertThat(VerifyDrawCommand.entrant("m-2\tef01\t7\t55\tSOLD_OUT"))
                .isEqualTo(new DrawCheck.Entrant("m-2", "ef01", 7, 55L, "SOLD_OUT"));
    }
}
