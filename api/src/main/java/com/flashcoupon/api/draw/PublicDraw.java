package com.flashcoupon.api.draw;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.flashcoupon.api.coupon.CouponState;
import java.time.Instant;

/**
 * A fair start's draw as anyone may see it (docs/http-api.md, {@code GET /public/v1/coupons/{id}/draw}, and the member
 * view's {@code draw}): the commitment from the announcement on; the entrant set's count and root once it is frozen at
 * the window's close, before any ticket is computed; and once the draw is recorded, the seed, how many were placed and
 * the draw function's version, with where the pseudonymous list of entrants is.
 *
 * @param state {@code OPEN} (the window), {@code DRAWING} (closed, not recorded yet), {@code MADE} (recorded)
 * @param commitment lower-case hex SHA-256 of the seed; null for a draw made before draws had seeds
 * @param drawAt when the window ends
 * @param entrants the members in the draw (so far, while the window is open; the frozen count once it is frozen)
 * @param places how many of them the draw places (would place, until it is made)
 * @param entrantsRoot lower-case hex SHA-256 of the frozen entrant set's leaves; null until it is frozen
 * @param frozenAt when the entrant set was frozen; null before
 * @param drawnAt when the draw was recorded; null before
 * @param placed how many it placed; null before
 * @param seed lower-case hex of the seed's 32 bytes; null before
 * @param functionVersion the draw function's version (docs/architecture.md); null before
 * @param entrantsPath the public list of entrants with their tickets and places; null before
 * @param beacon the randomness beacon round the draw mixed in (function 3); null otherwise
 * @param receiptKeys the service keys entry receipts are signed with (as {@code /.well-known/flash-coupon-keys})
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PublicDraw(
        long couponId,
        String state,
        String commitment,
        Instant drawAt,
        long entrants,
        long places,
        String entrantsRoot,
        Instant frozenAt,
        Instant drawnAt,
        Integer placed,
        String seed,
        Integer functionVersion,
        String entrantsPath,
        Beacon beacon,
        java.util.List<DrawKeys.PublicKey> receiptKeys) {

    /**
     * The beacon round a draw of function 3 mixed in, as the beacon published it: the ticket key is SHA-256(seed ||
     * randomness), and the randomness is the SHA-256 of the signature.
     */
    public record Beacon(long round, String randomness, String signature) {

        /** The record's round; null when the draw mixed in none. */
        public static Beacon of(DrawRecord record) {
            return record.beaconRound() == null
                    ? null
                    : new Beacon(record.beaconRound(), record.beaconRandomness(), record.beaconSignature());
        }
    }

    /** The record's path below the api's public root. */
    public static String path(long couponId) {
        return "/public/v1/coupons/" + couponId + "/draw";
    }

    /** The draw from MySQL's record and, until it is recorded, the live figures Redis holds ({@code live}). */
    static PublicDraw of(
            DrawRecord record, CouponState.Draw live, Instant now, java.util.List<DrawKeys.PublicKey> keys) {
        if (record.recorded()) {
            return new PublicDraw(
                    record.couponId(),
                    "MADE",
                    record.commitment(),
                    record.drawAt(),
                    record.entrants(),
                    record.placed(),
                    record.frozenRoot() != null ? record.frozenRoot() : record.entrantsDigest(),
                    record.frozenAt(),
                    record.drawnAt(),
                    record.placed(),
                    record.seed(),
                    record.functionVersion(),
                    path(record.couponId()) + "/entrants",
                    Beacon.of(record),
                    keys);
        }
        boolean open = live != null ? live.state() == 1 : now.isBefore(record.drawAt());
        long entrants = record.frozen() ? record.frozenEntrants() : live == null ? 0 : live.entrants();
        return new PublicDraw(
                record.couponId(),
                open ? "OPEN" : "DRAWING",
                record.commitment(),
                record.drawAt(),
                entrants,
                live == null ? 0 : live.places(),
                record.frozenRoot(),
                record.frozenAt(),
                null,
                null,
                null,
                null,
                null,
                null,
                keys);
    }
}
