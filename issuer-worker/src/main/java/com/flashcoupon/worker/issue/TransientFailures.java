package com.flashcoupon.worker.issue;

import java.io.IOException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.apache.commons.lang3.exception.ExceptionUtils;
import org.apache.kafka.common.errors.RetriableException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.transaction.CannotCreateTransactionException;

/**
 * Failures that say "a backing service is unreachable or slow right now", as opposed to a bug. Both are retried
 * (see {@link RetryBatchException}); this only decides how loudly.
 */
final class TransientFailures {

    private static final List<Class<? extends Throwable>> TRANSIENT = List.of(
            TransientDataAccessException.class, // includes lock and query timeouts, deadlocks
            DataAccessResourceFailureException.class, // includes no JDBC connection and RedisConnectionFailureException
            CannotCreateTransactionException.class,
            SQLTransientException.class,
            SQLRecoverableException.class, // the driver's CommunicationsException
            RetriableException.class, // Kafka client: broker unreachable, request timeouts
            TimeoutException.class,
            IOException.class);

    private TransientFailures() {}

    static boolean isTransient(Throwable failure) {
        for (Throwable t : ExceptionUtils.getThrowableList(failure)) {
            if (TRANSIENT.stream().anyMatch(type -> type.isInstance(t))) {
                return true;
            }
        }
        return false;
    }
}
