package com.flashcoupon.api.health;

import java.time.Duration;
import org.slf4j.Logger;

/**
 * One log line when a recurring job starts failing and one when it works again, instead of a line (or a stack trace)
 * on every attempt: a Redis outage of a minute used to write hundreds of lines per instance from the drain job alone.
 * Each attempt in between is logged at debug. Used from one thread per instance (a job's scheduler).
 */
public final class OutageLog {

    private final Logger log;
    private final String job;
    private long failingSince;
    private long failures;

    public OutageLog(Logger log, String job) {
        this.log = log;
        this.job = job;
    }

    /** An attempt failed: the first failure after a success is logged as a warning, the rest at debug. */
    public void failed(String what, Throwable error) {
        if (failures++ == 0) {
            failingSince = System.nanoTime();
            log.warn("{} failing ({}): {}; retrying, logged again when it works", job, what, error.toString());
        } else {
            log.debug("{} still failing ({}): {}", job, what, error.toString());
        }
    }

    /** A whole attempt worked: ends the outage with one line, if there was one. */
    public void succeeded() {
        if (failures > 0) {
            Duration lasted = Duration.ofNanos(System.nanoTime() - failingSince);
            log.info("{} works again after {} ms and {} failed attempts", job, lasted.toMillis(), failures);
            failures = 0;
        }
    }

    /** Whether the job is failing now (since its last success). */
    public boolean failing() {
        return failures > 0;
    }
}
