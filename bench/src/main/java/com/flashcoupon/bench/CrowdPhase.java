package com.flashcoupon.bench;

import com.flashcoupon.loadgen.crowd.CrowdPlan;
import com.flashcoupon.loadgen.engine.HttpCall;
import com.flashcoupon.loadgen.engine.LoadResult;
import java.util.Random;

/** A flash crowd over HTTP (some members asking twice), then the same crowd straight at the admission script. */
final class CrowdPhase implements Phase {

    @Override
    public void run(BenchRun b) throws Exception {
        BenchSettings s = b.s;
        CrowdPlan order = CrowdPlan.shuffled(s.members(), s.twice(), new Random(s.seed()));
        b.info(
                "crowd: %,d members (%,d asking twice), %,d coupons, %d connections",
                order.members(), order.askingTwice(), s.crowdStock(), s.concurrency());
        double from = b.now();
        LoadResult result = b.onCoupon(
                "crowd",
                s.crowdStock(),
                path -> BenchRun.closedRun(
                        s.api(),
                        s.concurrency(),
                        s.timeout(),
                        order.size(),
                        i -> HttpCall.post(path, b.tokens[order.memberAt(i)])));
        b.r.crowd = Measured.of("crowd over HTTP", s.concurrency(), result);
        if (result.firstError() != null) {
            b.r.notes.add("crowd: first request without an answer: " + result.firstError());
        }
        b.span("crowd", from, b.now());
        b.info("crowd: " + BenchRun.line(b.r.crowd));
        b.r.rawRedisCrowd = b.redis.runOnScratch(
                "raw script, crowd", s.crowdStock(), s.concurrency(), order.size(), i -> b.member(order.memberAt(i)));
        b.info("raw script, crowd: " + BenchRun.line(b.r.rawRedisCrowd));
    }
}
