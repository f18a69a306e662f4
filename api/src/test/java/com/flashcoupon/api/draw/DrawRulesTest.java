package com.flashcoupon.api.draw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The draw's function, against the worked example of docs/architecture.md ("A draw anyone can check"), which was also
 * computed by an independent implementation (Python's hashlib and hmac).
 */
class DrawRulesTest {

    private static final byte[] SEED = seed();
    private static final List<String> ENTRANTS = List.of("m-1", "m-10", "m-2", "m-3", "m-4");

    @Test
    void shouldComputeTheDocumentedExampleWhenGivenItsSeedAndEntrants() {
        assertThat(DrawRules.commitment(SEED))
                .isEqualTo("630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd");
        DrawRules.Outcome outcome = DrawRules.draw(SEED, ENTRANTS, 3);
        assertThat(DrawRules.hex(outcome.entrantsDigest()))
                .isEqualTo("bcc786024cb8325592320742b593a12cf411ebac67314e8b2901ae736a099542");
        assertThat(DrawRules.hex(DrawRules.ticket(SEED, outcome.entrantsDigest(), "m-2")))
                .isEqualTo("1f902b6199633c3d16b6d4c38950d7d04df55df6fc3555e4604348a9ab0ebe9d");
        assertThat(DrawRules.hex(DrawRules.ticket(SEED, outcome.entrantsDigest(), "m-4")))
                .isEqualTo("bd546c8e9862de4a46f8c6956d81f8f96e0692b51c0817755ce01d6704722bdf");
        assertThat(outcome.placed()).containsExactly("m-2", "m-10", "m-3");
        assertThat(outcome.entrants()).isEqualTo(5);
    }

    @Test
    void shouldPlaceEveryEntrantWhenThereAreMorePlacesThanEntrants() {
        assertThat(DrawRules.draw(SEED, ENTRANTS, 100).placed()).containsExactly("m-2", "m-10", "m-3", "m-1", "m-4");
        assertThat(DrawRules.draw(SEED, ENTRANTS, 0).placed()).isEmpty();
        assertThat(DrawRules.draw(SEED, List.of(), 10).placed()).isEmpty();
    }

    @Test
    void shouldChangeEveryTicketWhenOneEntrantMoreEntered() {
        byte[] digest = DrawRules.entrantsDigest(ENTRANTS);
        List<String> more = new ArrayList<>(ENTRANTS);
        more.add("m-5");
        byte[] other = DrawRules.entrantsDigest(more);
        for (String member : ENTRANTS) {
            assertThat(DrawRules.ticket(SEED, other, member)).isNotEqualTo(DrawRules.ticket(SEED, digest, member));
        }
    }

    @Test
    void shouldOrderTicketsWhoseLeadingBytesTieByTheirWholeValueThenByMemberId() {
        byte[] low = ticketOf(0x10, 0x01);
        byte[] high = ticketOf(0x10, 0x02);
        byte[] same = ticketOf(0x10, 0x02);
        byte[] first = ticketOf(0x00, 0xff);
        byte[] last = ticketOf(0xff, 0x00);
        List<String> members = List.of("a", "b", "c", "d", "e");
        byte[][] tickets = {high, same, last, low, first};

        assertThat(DrawRules.lowest(tickets, members, 5)).containsExactly("e", "d", "a", "b", "c");
        assertThat(DrawRules.lowest(tickets, members, 3)).containsExactly("e", "d", "a");
        assertThat(DrawRules.lowest(tickets, members, 0)).isEmpty();
    }

    /** A 32-byte ticket: {@code head}, seven zero bytes (so heads tie over the first eight bytes), then {@code tail}. */
    private static byte[] ticketOf(int head, int tail) {
        byte[] ticket = new byte[32];
        ticket[0] = (byte) head;
        ticket[31] = (byte) tail;
        return ticket;
    }

    @Test
    void shouldRefuseAnEntrantListOutOfByteOrderOrWithAMemberTwice() {
        assertThatThrownBy(() -> DrawRules.entrantsDigest(List.of("m-2", "m-10")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DrawRules.entrantsDigest(List.of("m-1", "m-1")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldGiveEveryEntrantAnEvenChanceOverManySeeds() {
        // 20 entrants, 5 places, 4,000 draws with fresh seeds: each entrant is placed about 1,000 times (binomial,
        // standard deviation about 27); a bias of a few percent would show far outside 850..1,150
        List<String> entrants = IntStream.rangeClosed(1, 20)
                .mapToObj(i -> String.format("m-%02d", i))
                .toList();
        int[] placed = new int[entrants.size()];
        for (int draw = 0; draw < 4_000; draw++) {
            for (String winner :
                    DrawRules.draw(DrawRules.newSeed(), entrants, 5).placed()) {
                placed[entrants.indexOf(winner)]++;
            }
        }
        assertThat(java.util.Arrays.stream(placed).boxed().toList())
                .allSatisfy(count -> assertThat(count).isBetween(850, 1_150));
    }

    @Test
    void shouldDrawSeedsThatNeverRepeat() {
        var seen = new HashSet<String>();
        for (int i = 0; i < 1_000; i++) {
            byte[] seed = DrawRules.newSeed();
            assertThat(seed).hasSize(DrawRules.SEED_BYTES);
            assertThat(seen.add(DrawRules.hex(seed))).isTrue();
        }
    }

    private static byte[] seed() {
        byte[] seed = new byte[32];
        for (int i = 0; i < seed.length; i++) {
            seed[i] = (byte) i;
        }
        return seed;
    }
}
