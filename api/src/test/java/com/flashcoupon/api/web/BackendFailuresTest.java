package com.flashcoupon.api.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCommandExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;

/** Which failures are an outage (503) and which a defect (500). */
class BackendFailuresTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "CLUSTERDOWN The cluster is down",
                "TRYAGAIN Multiple keys request during rehashing of slot",
                "LOADING Redis is loading the dataset in memory",
                "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
                "READONLY You can't write against a read only replica.",
                "NOREPLICAS Not enough good replicas to write."
            })
    void shouldCountRedisThatCannotServeNowAsDown(String reply) {
        var refused = new RedisSystemException("failed", new RedisCommandExecutionException(reply));
        assertThat(BackendFailures.isBackendDown(refused)).isTrue();
    }

    @Test
    void shouldCountAScriptErrorAsADefect() {
        var refused =
                new RedisCommandExecutionException("ERR Error running script: attempt to compare nil with number");
        assertThat(BackendFailures.isBackendDown(refused)).isFalse();
        assertThat(BackendFailures.isBackendDown(new IllegalStateException("a bug")))
                .isFalse();
    }

    @Test
    void shouldCountALostConnectionAsDown() {
        assertThat(BackendFailures.isBackendDown(new RedisConnectionFailureException("down")))
                .isTrue();
    }
}
