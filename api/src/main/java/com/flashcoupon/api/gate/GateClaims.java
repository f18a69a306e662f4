package com.flashcoupon.api.gate;

import java.util.Collection;
import java.util.Map;
import java.util.Set;

/**
 * The member's token claims as gate.lua reads them (admit.lua's ARGV[6]): {@code '\n'} then {@code name\tvalue\n} for
 * each text, number or boolean value, one per element of an array. Registered claims are left out; so is any name or
 * value holding a control character, so that no value can pass for another claim.
 */
final class GateClaims {

    private static final Set<String> LEFT_OUT = Set.of("iss", "sub", "aud", "exp", "nbf", "iat", "jti", "scope");

    /** More than gate.lua needs: a token's claims past this are left out. */
    private static final int MAX_LENGTH = 4096;

    private GateClaims() {}

    static String encode(Map<String, Object> claims) {
        StringBuilder out = new StringBuilder("\n");
        for (var claim : claims.entrySet()) {
            String name = claim.getKey();
            if (LEFT_OUT.contains(name) || !plain(name)) {
                continue;
            }
            if (claim.getValue() instanceof Collection<?> values) {
                values.forEach(value -> append(out, name, value));
            } else {
                append(out, name, claim.getValue());
            }
        }
        return out.length() > MAX_LENGTH ? out.substring(0, out.lastIndexOf("\n", MAX_LENGTH) + 1) : out.toString();
    }

    private static void append(StringBuilder out, String name, Object value) {
        if (value instanceof String || value instanceof Number || value instanceof Boolean) {
            String text = value.toString();
            if (!text.isEmpty() && plain(text)) {
                out.append(name).append('\t').append(text).append('\n');
            }
        }
    }

    /** No control character (tab, line breaks and the rest): what claim rules allow too. */
    static boolean plain(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.isISOControl(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
