package com.flashcoupon.api.gate;

import com.flashcoupon.api.ratelimit.RateLimits;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.api.web.ErrorCode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * What the admission brings to the gate (admit.lua's ARGV[6] and [7], read by gate.lua) and what its refusals answer:
 * the member's claims, the reading of {@code X-Coupon-Proof}, and, for a SITEVERIFY event, the service's verdict on
 * its token (asked only when gate.lua says the event needs one: code 10, reason 6).
 */
@Component
public class GateChecks {

    /** The admission's proof header: {@code <challenge>:<nonce>}, or a siteverify token. */
    public static final String PROOF_HEADER = "X-Coupon-Proof";

    /** Longest proof header read (a Turnstile token is about 2 KB). */
    private static final int MAX_PROOF = 4096;

    /** gate.lua's reason: a siteverify token the api has not checked yet. */
    public static final long CHECK_TOKEN = 6;

    private final ProofOfWork proofs;
    private final SiteVerifier siteverify;
    private final RateLimits limits;
    private final Counter[] refusals = new Counter[6];
    private final Counter wouldRefuseList;
    private final Counter wouldRefuseClaims;

    GateChecks(ProofOfWork proofs, SiteVerifier siteverify, RateLimits limits, MeterRegistry meters) {
        this.proofs = proofs;
        this.siteverify = siteverify;
        this.limits = limits;
        String[] rules = {"list", "claims", "proof_required", "proof_invalid", "human_check_unavailable"};
        for (int i = 0; i < rules.length; i++) {
            refusals[i + 1] = Counter.builder("coupon.admission.gate.refusals")
                    .description("Admissions the gate refused (issue 26), by rule")
                    .tag("rule", rules[i])
                    .register(meters);
        }
        this.wouldRefuseList = wouldRefuse(meters, "list");
        this.wouldRefuseClaims = wouldRefuse(meters, "claims");
    }

    private static Counter wouldRefuse(MeterRegistry meters, String rule) {
        return Counter.builder("coupon.admission.gate.would.refuse")
                .description("Members admitted by an event in COUNT_ONLY mode whom a rule would have refused")
                .tag("rule", rule)
                .register(meters);
    }

    /** An admission in COUNT_ONLY mode that a rule would have refused: admit.lua's flags (1 list, 2 claims). */
    public void countWouldRefuse(long flags) {
        if ((flags & 1) != 0) {
            wouldRefuseList.increment();
        }
        if ((flags & 2) != 0) {
            wouldRefuseClaims.increment();
        }
    }

    /**
     * What the admission presents: ARGV[6] (claims) and ARGV[7] (the proof's reading); and, once the siteverify service
     * refused its token, the check the answer failed ({@code check}, null otherwise).
     */
    public record Presented(String claims, String proof, String token, SiteverifyAnswer.Check check) {

        /** No claims and no proof (tests, the warm-up). */
        public static final Presented NONE = new Presented("\n", "", "", null);

        Presented verified(SiteVerifier.Verdict verdict) {
            return new Presented(claims, verdict.reading(), token, verdict.check());
        }
    }

    /** Whether the request's proof is an Argon2id one: reading it costs a memory-hard hash (milliseconds). */
    public boolean memoryHard(ServerHttpRequest request) {
        String header = request.getHeaders().getFirst(PROOF_HEADER);
        return header != null && header.startsWith("a1.");
    }

    public Presented presented(long couponId, String member, Map<String, Object> claims, ServerHttpRequest request) {
        String header = request.getHeaders().getFirst(PROOF_HEADER);
        String reading;
        if (header == null || header.isEmpty()) {
            reading = "";
        } else if (header.length() > MAX_PROOF) {
            reading = "X";
        } else {
            reading = proofs.read(couponId, member, header);
        }
        return new Presented(GateClaims.encode(claims), reading, reading.equals("?") ? header : "", null);
    }

    /**
     * The token checked by the siteverify service: what to present when asking gate.lua again. The service is told the
     * member's address as the rate limits see it (behind a trusted proxy, from {@code X-Forwarded-For}), not the
     * proxy's.
     */
    public Mono<Presented> verified(Presented presented, ServerHttpRequest request) {
        return siteverify
                .verify(presented.token(), limits.clientAddress(request))
                .map(presented::verified);
    }

    /**
     * A refusal of the admission, told which siteverify check the token failed when it was one: 403 PROOF_INVALID with
     * {@code check} naming it. Any other problem is as it was.
     */
    public Throwable withCheck(Throwable error, Presented presented) {
        if (presented.check() == null
                || !(error instanceof ApiException refused)
                || refused.code() != ErrorCode.PROOF_INVALID) {
            return error;
        }
        return ApiException.of(
                        ErrorCode.PROOF_INVALID,
                        "The human-check service's answer for your token failed its " + describe(presented.check())
                                + " check; complete the check again.")
                .with("check", presented.check().name());
    }

    private static String describe(SiteverifyAnswer.Check check) {
        return switch (check) {
            case REFUSED -> "own";
            case HOSTNAME -> "site (hostname)";
            case APP_PACKAGE -> "app (package name)";
            case ACTION -> "action";
            case TOKEN_AGE -> "age";
            case SCORE -> "score";
        };
    }

    /** The problem a refusal of gate.lua answers (admit.lua's code 10, with its reason). */
    public ApiException refusal(long couponId, long reason) {
        if (reason > 0 && reason < refusals.length) {
            refusals[(int) reason].increment();
        }
        return switch ((int) reason) {
            case 1 ->
                ApiException.of(
                        ErrorCode.NOT_ELIGIBLE, "Coupon " + couponId + " is for the members on its list; you are not.");
            case 2 ->
                ApiException.of(
                        ErrorCode.NOT_ELIGIBLE,
                        "Coupon " + couponId + " is for members whose account meets its rules; yours does not.");
            case 3 ->
                ApiException.of(
                        ErrorCode.PROOF_REQUIRED,
                        "Coupon " + couponId + " needs a human check: send X-Coupon-Proof (GET /api/v1/coupons/"
                                + couponId + "/challenge for a proof of work).");
            case 4 ->
                ApiException.of(
                        ErrorCode.PROOF_INVALID,
                        "The X-Coupon-Proof sent is not valid for you and coupon " + couponId
                                + " (wrong, expired, or another member's or event's); get a new one.");
            default -> ApiException.unavailable("The human-check service");
        };
    }
}
