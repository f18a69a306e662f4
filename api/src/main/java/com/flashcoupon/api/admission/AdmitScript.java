package com.flashcoupon.api.admission;

import static com.flashcoupon.api.redis.RedisReplies.number;

import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import java.util.List;
import org.springframework.data.redis.core.script.RedisScript;

/** {@code scripts/admit.lua}: the script, the keys it takes and how its reply reads; one place for the api and tests. */
final class AdmitScript {

    @SuppressWarnings("rawtypes")
    static final RedisScript<List> SCRIPT = RedisScript.of(LuaScripts.text("scripts/admit.lua"), List.class);

    private AdmitScript() {}

    static List<String> keys(long couponId) {
        return List.of(
                CouponKeys.meta(couponId),
                CouponKeys.queue(couponId),
                CouponKeys.seq(couponId),
                CouponKeys.done(couponId),
                CouponKeys.stats(couponId));
    }

    static Admission read(List<?> reply) {
        return new Admission(Admission.Outcome.fromScript(number(reply, 0)), number(reply, 1), number(reply, 2), (int)
                number(reply, 3));
    }
}
