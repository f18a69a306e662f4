package com.flashcoupon.bench;

import com.flashcoupon.loadgen.engine.HttpCall;
import com.flashcoupon.loadgen.engine.LoadRunner;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A fair start's draw at scale (issue 23): an event of {@code --draw-places} coupons whose window holds {@code
 * --draw-entrants} members (put into the draw's sorted set directly, as {@code admit.lua} puts them: a million HTTP
 * admissions would take the run's time for nothing the draw cares about). The window is then ended (its times an hour
 * back in MySQL, mirrored by an operator's change), and while the api's draw job makes and records the draw, entrants
 * read their status in a closed loop, so that the report says how long members wait for their outcome and whether
 * anything else waited meanwhile.
 */
final class DrawPhase implements Phase {

    /** Entrants with a token, reading their status while the draw is made. */
    private static final int READERS = 20_000;

    @Override
    public void run(BenchRun b) throws Exception {
        BenchSettings s = b.s;
        int entrants = s.drawEntrants();
        int places = s.drawPlaces();
        long coupon = b.admin.create("bench " + b.runId + " draw", places, s.admissionIssueRate(), 3600);
        String prefix = "draw-" + b.runId + "-";
        b.info("draw: coupon %d, %,d entrants for %,d places", coupon, entrants, places);
        long filling = System.nanoTime();
        b.redis.fillDraw(coupon, prefix, entrants);
        double fillSeconds = BenchRun.since(filling);
        String[] readers = new String[Math.min(READERS, entrants)];
        for (int i = 0; i < readers.length; i++) {
            readers[i] = b.minter.member(prefix + i);
        }

        new RawMysql(s.dbUrl(), s.dbUser(), s.dbPassword()).endWindow(coupon);
        b.admin.patchRate(coupon, s.admissionIssueRate());
        long ended = System.nanoTime();
        String statusPath = BenchRun.issuePath(coupon) + "/me";
        AtomicReference<Measured> reads = new AtomicReference<>();
        Duration readFor = s.quick() ? Duration.ofSeconds(5) : Duration.ofSeconds(15);
        Thread reading = Thread.ofPlatform().name("draw-readers").start(() -> {
            try (LoadRunner http = new LoadRunner(s.api(), 64, s.timeout())) {
                reads.set(TimedLoop.run(
                        http,
                        "status reads while the draw is made",
                        readFor,
                        i -> HttpCall.get(statusPath, readers[i % readers.length])));
            }
        });

        RawMysql mysql = new RawMysql(s.dbUrl(), s.dbUser(), s.dbPassword());
        double made = -1;
        double recorded = -1;
        long deadline = ended + Duration.ofMinutes(10).toNanos();
        while ((made < 0 || recorded < 0) && System.nanoTime() < deadline) {
            if (made < 0 && b.redis.drawn(coupon)) {
                made = BenchRun.since(ended);
            }
            if (recorded < 0 && mysql.drawRecorded(coupon)) {
                recorded = BenchRun.since(ended);
            }
            Thread.sleep(10);
        }
        reading.join();
        b.r.draw = new Results.Draw(
                coupon, entrants, places, fillSeconds, made, recorded, b.admin.drawState(coupon), reads.get());
        b.info(
                "draw: made %.2f s and recorded %.2f s after the window ended; %s",
                made, recorded, BenchRun.line(reads.get()));
        b.closeQuietly(coupon);
    }
}
