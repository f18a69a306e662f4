package com.flashcoupon.bench;

/**
 * Issue 24: the members' usual latency while hostile clients hold many connections with bodies that never come. An
 * open model of admissions of distinct members at {@code --slow-rate} for {@code --slow-duration}, twice on coupons of
 * their own: first alone, then with {@code --slow-connections} connections from {@code --slow-members} members held
 * open ({@link SlowHolders}: half wallet {@code use}, half device registrations, each announcing a 16,000-byte body and
 * sending one byte). The api closes each at its read time-out; it is opened again at once, so the count stays up.
 * Their first connections are spread over {@code --slow-spread} (5 s, the read time-out: a steady stream of time-outs
 * and new connections); {@code 0s} opens them all at once, so that they time out and come back in waves.
 */
final class SlowClientsPhase implements Phase {

    @Override
    public boolean quiet() {
        return true;
    }

    @Override
    public void run(BenchRun b) throws Exception {
        BenchSettings s = b.s;
        int rate = s.slowRate();
        int total = (int) Math.max(1, rate * (s.slowDuration().toMillis() / 1000.0));
        b.ensureTokens(total);
        b.info(
                "slow clients: %,d admissions/s for %d s alone, then beside %,d held connections of %d members",
                rate, s.slowDuration().toSeconds(), s.slowConnections(), s.slowMembers());
        double from = b.now();
        b.r.slowAlone = b.onCoupon(
                        "slow clients: alone",
                        total,
                        path -> OpenModelPhase.overHttp(b, s.api(), b.apiPid, "alone", path, rate, total))
                .result();
        b.info("slow clients, alone: " + BenchRun.line(b.r.slowAlone.measured()));

        String[] slowTokens = new String[s.slowMembers()];
        for (int i = 0; i < slowTokens.length; i++) {
            slowTokens[i] = b.minter.member("b" + b.runId + "-slow-" + i);
        }
        try (SlowHolders held = SlowHolders.start(s.api(), s.slowConnections(), slowTokens, s.slowSpread())) {
            held.awaitOpen(s.slowSpread().plusSeconds(60));
            b.info("slow clients: %,d connections held", held.open());
            held.startCounting();
            b.r.slowBeside = b.onCoupon(
                            "slow clients: beside",
                            total,
                            path -> OpenModelPhase.overHttp(
                                    b,
                                    s.api(),
                                    b.apiPid,
                                    "beside " + s.slowConnections() + " slow clients",
                                    path,
                                    rate,
                                    total))
                    .result();
            b.r.slowHeld = held.stats();
        }
        b.span("slow clients", from, b.now());
        b.info("slow clients, beside them: " + BenchRun.line(b.r.slowBeside.measured()) + "; " + b.r.slowHeld);
    }
}
