package com.flashcoupon.loadgen.crowd;

import com.flashcoupon.loadgen.draw.DrawCheck;
import com.flashcoupon.loadgen.draw.VerifyDrawCommand;
import com.flashcoupon.loadgen.engine.HttpCall;
import com.flashcoupon.loadgen.engine.LoadRunner;
import com.flashcoupon.loadgen.engine.LoadRunner.Answer;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import tools.jackson.databind.json.JsonMapper;

/**
 * A crowd on a fair start ({@code crowd --fair-start}): waits for the draw to be made and recorded, reads what the api
 * publishes of it (the admin view and the entrants' export), and checks it from the published seed as {@code
 * bin/verify-draw} does, against the wallets in MySQL.
 */
final class FairStart {

    private static final Duration CALL_TIMEOUT = Duration.ofMinutes(2);

    private FairStart() {}

    /** A made draw as published: its figures and every entrant's line. */
    record Drawn(DrawCheck.Published published, List<DrawCheck.Entrant> entrants) {

        /** The members the draw placed. */
        Set<String> placed() {
            Set<String> placed = new HashSet<>();
            entrants.stream().filter(e -> e.place() > 0).forEach(e -> placed.add(e.member()));
            return placed;
        }
    }

    /** Waits until the draw is made and recorded (at most {@code timeout}); null when it was not. */
    static Drawn await(
            CouponAdmin admin,
            LoadRunner http,
            JsonMapper json,
            String operatorToken,
            long couponId,
            Duration timeout,
            PrintStream err)
            throws InterruptedException {
        err.println("waiting for the draw of coupon " + couponId + " (its window, then the draw job)");
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!"MADE".equals(admin.drawState(couponId))) {
            if (System.nanoTime() > deadline) {
                return null;
            }
            Thread.sleep(250);
        }
        Answer view = call(http, HttpCall.get("/admin/v1/coupons/" + couponId, operatorToken));
        Answer export = call(http, HttpCall.get("/admin/v1/coupons/" + couponId + "/draw/entrants", operatorToken));
        if (view.status() != 200 || export.status() != 200) {
            throw new CouponAdmin.ApiException("reading the draw of coupon " + couponId + ": " + view.status() + ", "
                    + export.status() + " " + export.body());
        }
        List<DrawCheck.Entrant> entrants = export.body()
                .lines()
                .skip(1)
                .filter(line -> !line.isEmpty())
                .map(VerifyDrawCommand::entrant)
                .toList();
        return new Drawn(VerifyDrawCommand.published(JsonBodies.parse(json, view.body())), entrants);
    }

    /** The draw recomputed from its seed, against the wallets MySQL holds. */
    static Check verified(Drawn drawn, WalletSnapshot db) {
        List<DrawCheck.Wallet> wallets = new ArrayList<>();
        for (int i = 0; i < db.walletMembers().size(); i++) {
            wallets.add(new DrawCheck.Wallet(db.walletMembers().get(i), db.requestSeqs()[i]));
        }
        List<String> differences = DrawCheck.differences(drawn.published(), drawn.entrants(), wallets);
        DrawCheck.Published p = drawn.published();
        return new Check(
                "The draw: every ticket and place recomputed from the published seed (bin/verify-draw)",
                differences.isEmpty(),
                differences.isEmpty()
                        ? String.format(
                                Locale.ROOT,
                                "%,d entrants, %,d placed; seed %s matches commitment %s",
                                p.entrants(),
                                p.placed(),
                                p.seed(),
                                p.commitment())
                        : differences.getFirst()
                                + (differences.size() > 1 ? " (and " + (differences.size() - 1) + " more)" : ""));
    }

    private static Answer call(LoadRunner http, HttpCall call) {
        try {
            return http.send(call).block(CALL_TIMEOUT);
        } catch (RuntimeException e) {
            throw new CouponAdmin.ApiException(call.path() + " failed: " + LoadRunner.describe(e), e);
        }
    }
}
