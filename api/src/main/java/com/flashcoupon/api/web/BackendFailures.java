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
                            && !(t instanceof io.lettuce.core.RedisCommandExecutionException))) {
                return true;
            }
        }
        return false;
    }
}
