package com.flashcoupon.pipeline;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * What every process the pipeline tests start needs (the stacks' apps, the Kafka brokers, the private Redis servers):
 * a free port, a pause that keeps an interrupt, the child JVMs' log configuration, and the wait for an app's health.
 */
final class ProcessKit {

    private ProcessKit() {}

    /** A port nothing listens on now, as the system hands it out. */
    static int freePort() throws IOException {
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Sleeps, and on an interrupt stops sleeping and keeps the thread's interrupt flag. */
    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The JVM option that gives a child JVM the tests' logback configuration. */
    static String logbackOption() {
        return "-Dlogback.configurationFile=" + ChildJvm.logbackConfig().toAbsolutePath();
    }

    /**
     * Whether the app on {@code port} answers its whole health 200: the instance ready (listeners started) and its
     * Redis, MySQL and Kafka reachable (readiness alone is the instance itself since issue 27).
     */
    static boolean healthy(HttpClient probe, int port) throws InterruptedException {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                .timeout(Duration.ofSeconds(5))
                .build();
        try {
            return probe.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException notYet) {
            return false;
        }
    }

    /** Waits until the app on {@code port} is {@link #healthy}; fails early, with its log, if it exits. */
    static void awaitHealthy(HttpClient probe, ChildJvm app, int port, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!healthy(probe, port)) {
            if (!app.alive()) {
                throw new IllegalStateException(app.name() + " exited: see " + app.log());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(app.name() + " not ready after " + timeout + ": see " + app.log());
            }
            Thread.sleep(250);
        }
    }
}
