package com.flashcoupon.api.status;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.draw.DrawKeys;
import com.flashcoupon.api.draw.DrawRepository;
import com.flashcoupon.api.draw.DrawRules;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;

/**
 * Entry receipts (docs/http-api.md, "Entry receipts"): the admission answer and the status of a member in a fair
 * start's draw that is not made yet (function 2) carry a receipt signed with the service key ({@link DrawKeys}) over
 * the event, the member's pseudonym and a time at which the service saw them among the entrants. Entrants never leave
 * a draw, so any such receipt proves the member entered: one left out of the published list can show it. An event's
 * pseudonym key never changes, so it is read once.
 */
@Service
public class EntryReceipts {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(EntryReceipts.class);

    static final String MESSAGE_PREFIX = "flash-coupon entry receipt v1\n";

    private static final int REMEMBERED = 10_000;

    private final DrawRepository draws;
    private final DrawKeys keys;
    private final BlockingIo blocking;
    private final Clock clock;
    private final Map<Long, Optional<byte[]>> pseudonymKeys = new ConcurrentHashMap<>();

    EntryReceipts(DrawRepository draws, DrawKeys keys, BlockingIo blocking, Clock clock) {
        this.draws = draws;
        this.keys = keys;
        this.blocking = blocking;
        this.clock = clock;
    }

    /** The exact text a receipt's signature is over. */
    public static String message(long couponId, String pseudonym, String enteredBy) {
        return MESSAGE_PREFIX + couponId + "\n" + pseudonym + "\n" + enteredBy + "\n";
    }

    /** The status with a receipt when the member is in a draw not made yet (function 2); otherwise as it is. */
    public Mono<IssueStatus> withReceipt(IssueStatus status) {
        if (status.draw() == null || status.draw().state() == IssueStatus.DrawState.MADE) {
            return Mono.just(status);
        }
        Optional<byte[]> known = pseudonymKeys.get(status.couponId());
        Mono<Optional<byte[]>> key = known != null
                ? Mono.just(known)
                : blocking.call(() -> {
                    Optional<byte[]> read = draws.pseudonymKey(status.couponId());
                    if (pseudonymKeys.size() >= REMEMBERED) {
                        pseudonymKeys.clear();
                    }
                    pseudonymKeys.put(status.couponId(), read);
                    return read;
                });
        return key.map(found ->
                        found.map(k -> status.withReceipt(receipt(status, k))).orElse(status))
                .onErrorReturn(status);
    }

    private IssueStatus.Receipt receipt(IssueStatus status, byte[] pseudonymKey) {
        String pseudonym = DrawRules.pseudonym(pseudonymKey, status.memberId());
        String enteredBy = clock.instant().truncatedTo(ChronoUnit.MILLIS).toString();
        DrawKeys.Signed signed = keys.sign(message(status.couponId(), pseudonym, enteredBy));
        return new IssueStatus.Receipt(status.couponId(), pseudonym, enteredBy, signed.keyId(), signed.signature());
    }
}
