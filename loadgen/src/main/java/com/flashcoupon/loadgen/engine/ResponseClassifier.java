package com.flashcoupon.loadgen.engine;

/**
 * Says what an answer counts as (a label such as {@code "202"} or {@code "409 SOLD_OUT"}) and may remember what it
 * needs from the body. Called on event-loop threads, concurrently: it must be quick and thread-safe.
 */
@FunctionalInterface
public interface ResponseClassifier {

    /** Counts every answer by its status code. */
    ResponseClassifier BY_STATUS = (index, status, body) -> Integer.toString(status);

    String classify(int index, int status, String body);

    /**
     * The same, told how long the answer took from the request's sending ({@code latencyNanos}): for a classifier that
     * needs to know when the request left (the wait estimates, issue 32). By default the latency is ignored.
     */
    default String classify(int index, int status, String body, long latencyNanos) {
        return classify(index, status, body);
    }

    /** The request got no answer (refused, reset, timed out); it is counted as {@link LoadRunner#CONNECTION_ERROR}. */
    default void failed(int index, Throwable error) {}
}
