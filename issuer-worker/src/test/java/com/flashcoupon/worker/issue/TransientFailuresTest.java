package com.flashcoupon.worker.issue;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.listener.ListenerExecutionFailedException;

/** Which failures the issuer retries until they pass, looked for anywhere in the cause chain. */
class TransientFailuresTest {

    @Test
    void shouldFindATransientCauseWrappedTwice() {
        var failure = new ListenerExecutionFailedException(
                "listener failed",
                new IllegalStateException("batch failed", new SQLTransientConnectionException("pool exhausted")));

        assertThat(TransientFailures.isTransient(failure)).isTrue();
    }

    @Test
    void shouldTreatABugAsNotTransient() {
        assertThat(TransientFailures.isTransient(
                        new IllegalStateException("bug", new IllegalArgumentException("bad input"))))
                .isFalse();
    }

    @Test
    void shouldStopWhenTheCauseChainIsACircle() {
        var first = new IllegalStateException("first");
        var second = new IllegalArgumentException("second", first);
        first.initCause(second);

        assertThat(TransientFailures.isTransient(first)).isFalse();
    }
}
