package com.flashcoupon.api.web;

import jakarta.validation.ConstraintViolationException;
import java.util.Comparator;
import java.util.List;
import org.apache.commons.lang3.exception.ExceptionUtils;
import org.jspecify.annotations.Nullable;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.bind.support.WebExchangeBindException;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.reactive.result.method.annotation.ResponseEntityExceptionHandler;
import org.springframework.web.server.MissingRequestValueException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebInputException;
import reactor.core.publisher.Mono;

/**
 * Every error of a controller becomes a problem with the contract's {@code code}. Expected outcomes are logged at
 * debug (they are answers, not faults), input errors at debug, surprises at error, without the request's secrets.
 */
@RestControllerAdvice
class ProblemHandler extends ResponseEntityExceptionHandler {

    @ExceptionHandler(ApiException.class)
    ResponseEntity<ProblemDetail> handleApi(ApiException e, ServerWebExchange exchange) {
        return ProblemAnswers.of(e, exchange);
    }

    /** Method validation outside a controller's own parameters (defensive: controllers use built-in validation). */
    @ExceptionHandler(ConstraintViolationException.class)
    ResponseEntity<ProblemDetail> handleConstraint(ConstraintViolationException e) {
        List<Problems.FieldError> errors = e.getConstraintViolations().stream()
                .map(v -> new Problems.FieldError(lastNode(v.getPropertyPath().toString()), v.getMessage()))
                .sorted(Comparator.comparing(Problems.FieldError::field))
                .toList();
        return ResponseEntity.badRequest().body(Problems.invalid("The request has invalid values.", errors));
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<ProblemDetail> handleUnexpected(Exception e, ServerWebExchange exchange) {
        return ProblemAnswers.of(e, exchange);
    }

    @Override
    protected Mono<ResponseEntity<Object>> handleWebExchangeBindException(
            WebExchangeBindException ex, HttpHeaders headers, HttpStatusCode status, ServerWebExchange exchange) {
        List<Problems.FieldError> errors = ex.getFieldErrors().stream()
                .map(error -> new Problems.FieldError(error.getField(), error.getDefaultMessage()))
                .sorted(Comparator.comparing(Problems.FieldError::field))
                .toList();
        var problem = Problems.invalid("The request has invalid fields.", errors);
        return Mono.just(ResponseEntity.badRequest().body(problem));
    }

    @Override
    protected Mono<ResponseEntity<Object>> handleHandlerMethodValidationException(
            HandlerMethodValidationException ex,
            HttpHeaders headers,
            HttpStatusCode status,
            ServerWebExchange exchange) {
        List<Problems.FieldError> errors = ex.getParameterValidationResults().stream()
                .flatMap(result -> result.getResolvableErrors().stream()
                        .map(error -> new Problems.FieldError(
                                result.getMethodParameter().getParameterName(), error.getDefaultMessage())))
                .toList();
        return Mono.just(ResponseEntity.badRequest().body(Problems.invalid("The request has invalid values.", errors)));
    }

    @Override
    protected Mono<ResponseEntity<Object>> handleServerWebInputException(
            ServerWebInputException ex, HttpHeaders headers, HttpStatusCode status, ServerWebExchange exchange) {
        if (causedBy(ex, DataBufferLimitException.class)) {
            return Mono.just(ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE)
                    .body(Problems.of(ErrorCode.PAYLOAD_TOO_LARGE, "The request body is over 16 KiB.")));
        }
        return Mono.just(ResponseEntity.badRequest().body(Problems.of(ErrorCode.INVALID_REQUEST, inputDetail(ex))));
    }

    /** A required header or parameter missing: the problem names it as the client sends it ("the Idempotency-Key header"). */
    @Override
    protected Mono<ResponseEntity<Object>> handleMissingRequestValueException(
            MissingRequestValueException ex, HttpHeaders headers, HttpStatusCode status, ServerWebExchange exchange) {
        return Mono.just(ResponseEntity.badRequest()
                .body(Problems.of(
                        ErrorCode.INVALID_REQUEST,
                        "The " + ex.getName() + " " + ex.getLabel().replace("request ", "") + " is required.")));
    }

    /** Re-codes what Spring answers for itself (404, 405, 406, 415 ...) as our problems, keeping its status. */
    @Override
    protected Mono<ResponseEntity<Object>> handleExceptionInternal(
            Exception ex,
            @Nullable Object body,
            @Nullable HttpHeaders headers,
            HttpStatusCode status,
            ServerWebExchange exchange) {
        ErrorCode code = codeFor(status);
        String detail = body instanceof ProblemDetail problem && problem.getDetail() != null
                ? problem.getDetail()
                : code.title();
        ProblemDetail problem = Problems.of(code, detail);
        problem.setStatus(status.value());
        return Mono.just(ResponseEntity.status(status)
                .headers(headers == null ? HttpHeaders.EMPTY : headers)
                .body(problem));
    }

    static ErrorCode codeFor(HttpStatusCode status) {
        return switch (status.value()) {
            case 400 -> ErrorCode.INVALID_REQUEST;
            case 401 -> ErrorCode.UNAUTHORIZED;
            case 403 -> ErrorCode.FORBIDDEN;
            case 404 -> ErrorCode.NOT_FOUND;
            case 405 -> ErrorCode.METHOD_NOT_ALLOWED;
            case 406 -> ErrorCode.NOT_ACCEPTABLE;
            case 408 -> ErrorCode.REQUEST_TIMEOUT;
            case 413 -> ErrorCode.PAYLOAD_TOO_LARGE;
            case 415 -> ErrorCode.UNSUPPORTED_MEDIA_TYPE;
            case 429 -> ErrorCode.RATE_LIMITED;
            case 503 -> ErrorCode.UNAVAILABLE;
            default -> status.is4xxClientError() ? ErrorCode.INVALID_REQUEST : ErrorCode.INTERNAL_ERROR;
        };
    }

    private static String inputDetail(ServerWebInputException ex) {
        if (ex.getCause() instanceof DecodingException) {
            return "The request body is not valid JSON of the expected shape.";
        }
        if (ex.getMethodParameter() != null && ex.getMethodParameter().getParameterName() != null) {
            return "Invalid value for '" + ex.getMethodParameter().getParameterName() + "'.";
        }
        return "The request is malformed.";
    }

    private static String lastNode(String path) {
        int dot = path.lastIndexOf('.');
        return dot < 0 ? path : path.substring(dot + 1);
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t : ExceptionUtils.getThrowableList(e)) {
            if (type.isInstance(t)
                    || (t.getMessage() != null && t.getMessage().contains("Exceeded limit on max bytes"))) {
                return true;
            }
        }
        return false;
    }
}
