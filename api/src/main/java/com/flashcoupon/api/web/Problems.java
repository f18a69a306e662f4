package com.flashcoupon.api.web;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import org.springframework.http.ProblemDetail;

/** Builds the RFC 9457 bodies of every error: {@code type}, {@code title}, {@code status}, {@code detail}, {@code code}. */
public final class Problems {

    private static final String TYPE_BASE = "https://flash-coupon.dev/problems/";

    private Problems() {}

    public static ProblemDetail of(ErrorCode code, String detail) {
        var problem = ProblemDetail.forStatusAndDetail(code.status(), detail);
        problem.setType(
                URI.create(TYPE_BASE + code.name().toLowerCase(Locale.ROOT).replace('_', '-')));
        problem.setTitle(code.title());
        problem.setProperty("code", code.name());
        return problem;
    }

    /** A 400 naming each field that failed. */
    public static ProblemDetail invalid(String detail, List<FieldError> errors) {
        var problem = of(ErrorCode.INVALID_REQUEST, detail);
        problem.setProperty("errors", errors);
        return problem;
    }

    /** One field that failed validation. */
    public record FieldError(String field, String message) {}
}
