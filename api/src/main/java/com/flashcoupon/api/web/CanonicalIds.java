package com.flashcoupon.api.web;

import java.beans.PropertyEditorSupport;
import org.springframework.web.bind.WebDataBinder;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.InitBinder;

/**
 * Ids in paths are plain decimal numbers (docs/http-api.md: anything else is a 400), so that one resource has one
 * path: a WAF rule, a cache or a log search keyed on {@code /api/v1/coupons/42/...} sees every request for coupon 42.
 * Spring's own conversion ({@code NumberUtils.parseNumber}) also reads {@code 0x2a}, {@code #2a}, {@code +42},
 * {@code 042}, {@code 4 2} (whitespace removed) and non-ASCII digits as 42.
 *
 * <p>An editor every controller's binder gets for {@code long} and {@code Long}: today only ids in paths are read that
 * way. An editor rather than a {@code Converter}: when a converter refuses, Spring's binder falls back on its default
 * number editor, which reads {@code 0x2a} again. Its refusal is a type mismatch, answered 400 {@code INVALID_REQUEST}
 * naming the parameter. A 0 passes here, as the canonical text of zero, and is refused by the {@code @Positive} on
 * each id.
 */
@ControllerAdvice
public class CanonicalIds {

    @InitBinder
    void plainDecimalIds(WebDataBinder binder) {
        binder.registerCustomEditor(long.class, new PlainDecimal());
        binder.registerCustomEditor(Long.class, new PlainDecimal());
    }

    /** One per binder: a property editor holds the value it converted. */
    private static final class PlainDecimal extends PropertyEditorSupport {

        @Override
        public void setAsText(String text) {
            long value = parse(text);
            if (value < 0) {
                throw new IllegalArgumentException("not a plain decimal number");
            }
            setValue(value);
        }
    }

    /** The most digits a positive {@code long} has. */
    private static final int MAX_DIGITS = 19;

    /**
     * The value of a plain decimal: {@code 0}, or 1 to 19 ASCII digits without a leading zero that fit in a long; -1
     * for anything else (a sign, a space, a prefix, another script's digits, an overflow).
     */
    public static long parse(String text) {
        if (text == null || text.isEmpty() || text.length() > MAX_DIGITS) {
            return -1;
        }
        if (text.charAt(0) == '0') {
            return text.length() == 1 ? 0 : -1;
        }
        long value = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
            if (value < 0) {
                return -1; // past Long.MAX_VALUE: 19 digits overflow at most once, into the negatives
            }
        }
        return value;
    }
}
