package com.flashcoupon.api.admission;

import static com.flashcoupon.api.redis.RedisReplies.number;
import static com.flashcoupon.api.redis.RedisReplies.text;

import com.flashcoupon.api.draw.DrawWindow;
import com.flashcoupon.api.gate.GateChecks;
import com.flashcoupon.api.ratelimit.RateLimits;
import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import java.util.List;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * {@code scripts/admit.lua} with its rate limits ({@code limits.lua} in front): the script, the keys it takes and how
 * its reply reads; one place for the api and tests.
 */
final class AdmitScript {

    static final String TEXT =
            LuaScripts.text("scripts/gate.lua") + DrawWindow.withWindow(RateLimits.withLimits("scripts/admit.lua"));

    static final ScriptConnection.Script SCRIPT = ScriptConnection.Script.of(TEXT);

    /** The same script for tests that run it through Spring's template (without limits: no limit keys or rates). */
    @SuppressWarnings("rawtypes")
    static final RedisScript<List> TEMPLATE_SCRIPT = RedisScript.of(TEXT, List.class);

    private AdmitScript() {}

    /** The script's keys with no member's or address's limit in play (the tests run it without rates). */
    static List<String> keys(long couponId) {
        return List.of(CouponKeys.admission(
                couponId, CouponKeys.memberLimit(couponId, ""), CouponKeys.addressLimit(couponId, "")));
    }

    static String[] keys(long couponId, RateLimits.CouponLimits limits) {
        return CouponKeys.admission(couponId, limits.memberKey(), limits.addressKey());
    }

    static String[] args(String memberId, RateLimits.CouponLimits limits, GateChecks.Presented gate) {
        List<String> rates = limits.args();
        return new String[] {
            memberId, rates.get(0), rates.get(1), rates.get(2), rates.get(3), gate.claims(), gate.proof()
        };
    }

    /**
     * The reply; for {@code RATE_LIMITED}, {@code sequence} is the refusing limit (1 member, 2 address), {@code done}
     * the wait in ms; for the draw's outcomes, see {@link Admission.Outcome#DRAW_ENTERED}.
     */
    static Admission read(List<?> reply) {
        return new Admission(
                Admission.Outcome.fromScript(number(reply, 0)),
                number(reply, 1),
                number(reply, 2),
                (int) number(reply, 3),
                reply.size() > 4 ? text(reply, 4) : "",
                reply.size() > 5 ? number(reply, 5) : 0);
    }
}
