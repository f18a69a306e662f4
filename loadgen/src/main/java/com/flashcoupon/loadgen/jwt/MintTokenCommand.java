package com.flashcoupon.loadgen.jwt;

import com.flashcoupon.loadgen.UsageException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * {@code mint-token SUBJECT [ROLE...]}: prints one token signed with {@code COUPON_JWT_SECRET}, valid
 * {@code COUPON_JWT_TTL_MINUTES} (default 720: 12 hours). {@code bin/up} writes {@code .run/tokens.env} with it.
 */
public final class MintTokenCommand {

    private MintTokenCommand() {}

    public static String usage() {
        return "mint-token SUBJECT [ROLE...]: print a token for SUBJECT with ROLES (coupon-admin for an operator)\n"
                + "  key COUPON_JWT_SECRET (at least 32 bytes), lifetime COUPON_JWT_TTL_MINUTES (default 720)\n";
    }

    /** The token for {@code args} (the subject, then any roles). */
    public static String token(List<String> args, Map<String, String> env, Clock clock) {
        if (args.isEmpty()) {
            throw new UsageException("mint-token needs a subject");
        }
        String secret = env.get("COUPON_JWT_SECRET");
        if (secret == null) {
            throw new UsageException("COUPON_JWT_SECRET must be set");
        }
        String ttl = env.getOrDefault("COUPON_JWT_TTL_MINUTES", "720");
        try {
            JwtMinter minter = new JwtMinter(secret, clock, Duration.ofMinutes(Long.parseLong(ttl)));
            return minter.mint(args.get(0), args.subList(1, args.size()));
        } catch (NumberFormatException e) {
            throw new UsageException("COUPON_JWT_TTL_MINUTES is not a number of minutes: " + ttl);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }
}
