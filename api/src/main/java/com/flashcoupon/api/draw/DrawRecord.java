package com.flashcoupon.api.draw;

import java.time.Instant;

/**
 * A RANDOMIZED_START event's draw as anyone may see it (docs/architecture.md, "A draw anyone can check"): the
 * commitment from the event's creation on; once the draw is recorded ({@code drawnAt}), the seed and what the draw was
 * made from and gave. A draw made before draws had seeds has neither seed nor commitment.
 *
 * @param commitment lower-case hex SHA-256 of the seed
 * @param drawAt when the window ends (the entrants are frozen then)
 * @param drawnAt when the draw's outcome was recorded; null before
 * @param entrants how many members entered the window; null before
 * @param placed how many of them the draw placed; null before
 * @param entrantsDigest lower-case hex SHA-256 of the entrant list; null before
 * @param firstSequence the admission sequence of place 1; null before
 * @param seed lower-case hex of the seed's 32 bytes, published once the draw is recorded; null before
 * @param frozenAt when the closed window's entrant set was frozen in MySQL; null before
 * @param frozenEntrants how many entrants the frozen set holds; null before
 * @param frozenRoot lower-case hex SHA-256 of the frozen set's leaves (the entrants' digest); null before
 * @param madeAt when the recorded draw was written into Redis, members told; null before
 * @param functionVersion the documented draw function it is made with: 1 over member ids, 2 over pseudonyms, 3 over
 *     pseudonyms with a beacon round mixed into the ticket key
 * @param beaconRound the randomness beacon's round mixed in (function 3); null otherwise
 * @param beaconRandomness that round's randomness, lower-case hex; null otherwise
 * @param beaconSignature that round's signature, lower-case hex; null otherwise
 */
public record DrawRecord(
        long couponId,
        String commitment,
        Instant drawAt,
        Instant drawnAt,
        Integer entrants,
        Integer placed,
        String entrantsDigest,
        Long firstSequence,
        String seed,
        Instant frozenAt,
        Integer frozenEntrants,
        String frozenRoot,
        Instant madeAt,
        int functionVersion,
        Long beaconRound,
        String beaconRandomness,
        String beaconSignature) {

    /** The draw's outcome is recorded in MySQL: every entrant's place, the seed published. */
    public boolean recorded() {
        return drawnAt != null;
    }

    /**
     * The key every ticket of the recorded draw is an HMAC under: the seed (functions 1 and 2), or SHA-256(seed ||
     * beacon randomness) (function 3). Null before the seed is published.
     */
    public byte[] ticketKey() {
        if (seed == null) {
            return null;
        }
        byte[] key = DrawRules.unhex(seed);
        return beaconRandomness == null ? key : DrawRules.beaconKey(key, DrawRules.unhex(beaconRandomness));
    }

    /** The entrant set is frozen: its count and root are public, the draw is made from that set only. */
    public boolean frozen() {
        return frozenAt != null;
    }
}
