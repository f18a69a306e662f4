package com.flashcoupon.api.web;

import org.apache.commons.lang3.exception.ExceptionUtils;
import reactor.netty.channel.AbortedException;

/**
 * Tells a request that failed because of its client from a fault of the api: the connection closed under it, or its
 * body did not arrive within {@code coupon.http.read-timeout} / {@code request-timeout} (Reactor Netty then closes the
 * connection itself). It is not a defect: logged at debug, never as an error with a stack trace (a crowd of slow clients
 * would otherwise fill the log), and answered 408 {@code REQUEST_TIMEOUT} with the connection closed, for whoever still
 * reads.
 */
public final class ClientGone {

    /** Reactor Netty's exception for {@code requestTimeout}, a class it does not export. */
    private static final String REQUEST_TIMEOUT = "reactor.netty.http.server.RequestTimeoutException";

    /** The answer's {@code detail}, when anybody is left to read it (408 {@code REQUEST_TIMEOUT}). */
    public static final String DETAIL = "The request's body did not arrive in time; nothing was done.";

    private ClientGone() {}

    public static boolean is(Throwable error) {
        for (Throwable t : ExceptionUtils.getThrowableList(error)) {
            if (t instanceof AbortedException
                    || t instanceof io.netty.handler.timeout.ReadTimeoutException
                    || t.getClass().getName().equals(REQUEST_TIMEOUT)) {
                return true;
            }
        }
        return false;
    }
}
