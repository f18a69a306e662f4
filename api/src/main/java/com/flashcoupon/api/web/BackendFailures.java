package com.flashcoupon.api.web;

import java.net.ConnectException;
import java.util.concurrent.TimeoutException;
import org.apache.commons.lang3.exception.ExceptionUtils;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.data.redis.RedisConnectionFailureException;

/** Tells a backing service being down (answer 503, fail closed) from a bug (answer 500 and log it). */
public final class BackendFailures {

    private BackendFailures() {}

    public static boolean isBackendDown(Throwable error) {
        for (Throwable t : ExceptionUtils.getThrowableList(error)) {
            if (t instanceof RedisConnectionFailureException
                    || t instanceof DataAccessResourceFailureException
                    || t instanceof TransientDataAccessException
                    || t instanceof QueryTimeoutException
                    || t instanceof ConnectException
                    || t instanceof TimeoutException
                    || t instanceof org.apache.kafka.common.errors.TimeoutException
                    || t instanceof io.lettuce.core.RedisConnectionException
                    || t instanceof io.lettuce.core.RedisCommandTimeoutException
                    || t instanceof java.sql.SQLTransientException
                    || t instanceof java.sql.SQLNonTransientConnectionException
                    || t instanceof java.io.IOException
                    // "currently not connected", broken pipe, reset: anything but Redis refusing a command we sent
                    || (t instanceof io.lettuce.core.RedisException
                            && !(t instanceof io.lettuce.core.RedisCommandExecutionException))
                    || isRedisUnavailable(t)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Redis refusing a command because it cannot serve it now, not because the command is wrong: a cluster without a
     * primary for a slot (CLUSTERDOWN, during a failover), a slot moving (TRYAGAIN), a node loading its data (LOADING),
     * a replica whose primary is gone (MASTERDOWN), a write to a demoted primary (READONLY). Seen as 500s in the
     * cluster failover test; they are outages, answered 503.
     */
    private static boolean isRedisUnavailable(Throwable t) {
        if (!(t instanceof io.lettuce.core.RedisCommandExecutionException) || t.getMessage() == null) {
            return false;
        }
        String message = t.getMessage();
        for (String prefix : UNAVAILABLE_REPLIES) {
            if (message.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private static final java.util.List<String> UNAVAILABLE_REPLIES =
            java.util.List.of("CLUSTERDOWN", "TRYAGAIN", "LOADING", "MASTERDOWN", "READONLY", "NOREPLICAS");
}
