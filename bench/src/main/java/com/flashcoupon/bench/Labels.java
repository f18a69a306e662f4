package com.flashcoupon.bench;

/** Outcome labels of HTTP answers: the status, and for problems the contract's {@code code} ("409 SOLD_OUT"). */
final class Labels {

    private Labels() {}

    static String of(int status, String body) {
        if (status < 400 || body == null) {
            return Integer.toString(status);
        }
        String code = code(body);
        return code == null ? Integer.toString(status) : status + " " + code;
    }

    /** The value of the first {@code "code":"…"} in a problem body, read without a JSON parser; null when absent. */
    static String code(String body) {
        int at = body.indexOf("\"code\"");
        if (at < 0) {
            return null;
        }
        int colon = body.indexOf(':', at + 6);
        int open = colon < 0 ? -1 : body.indexOf('"', colon + 1);
        int close = open < 0 ? -1 : body.indexOf('"', open + 1);
        if (close < 0 || close - open > 64) {
            return null;
        }
        return body.substring(open + 1, close);
    }
}
