package com.flashcoupon.api.web;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.server.ServerWebExchange;

/**
 * The problem a failed request is answered with: an {@link ApiException} as its code says (with {@code Retry-After}
 * when it has one), a backing service down as 503, anything else as 500, logged. One place for the controllers'
 * advice ({@link ProblemHandler}) and the admission's lean path, which the advice does not reach.
 */
public final class ProblemAnswers {

    private static final Logger log = LoggerFactory.getLogger(ProblemHandler.class);

    private ProblemAnswers() {}

    public static ResponseEntity<ProblemDetail> of(Throwable error, ServerWebExchange exchange) {
        if (error instanceof ApiException e) {
            if (e.code() == ErrorCode.UNAVAILABLE) {
                try (var scope = RequestIdFilter.logScope(exchange)) {
                    log.warn("answered 503: {}", e.getMessage());
                }
            }
            var answer = ResponseEntity.status(e.code().status());
            if (e.retryAfterSeconds() > 0) {
                answer.header(HttpHeaders.RETRY_AFTER, Long.toString(e.retryAfterSeconds()));
            }
            var problem = Problems.of(e.code(), e.getMessage());
            e.properties().forEach(problem::setProperty);
            return answer.body(problem);
        }
        try (var scope = RequestIdFilter.logScope(exchange)) {
            if (BackendFailures.isBackendDown(error)) {
                log.warn("a backing service is down: {}", error.toString());
                return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                        .body(Problems.of(
                                ErrorCode.UNAVAILABLE,
                                "A backing service is unavailable; nothing was accepted. Try again shortly."));
            }
            if (ClientGone.is(error)) {
                // the connection is being closed: this answer reaches a client that is still reading, if any
                log.debug("the client went away or did not send its request in time: {}", error.toString());
                return ResponseEntity.status(HttpStatus.REQUEST_TIMEOUT)
                        .header(HttpHeaders.CONNECTION, "close")
                        .body(Problems.of(ErrorCode.REQUEST_TIMEOUT, ClientGone.DETAIL));
            }
            log.error("unexpected error", error);
            return ResponseEntity.internalServerError()
                    .body(Problems.of(ErrorCode.INTERNAL_ERROR, "Something went wrong on our side."));
        }
    }
}
