package com.flashcoupon.pipeline;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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

    /** Start-ups an app may fail, each followed by a new start, before {@link #awaitHealthy} gives up on it. */
    static final int START_RETRIES = 4;

    /**
     * How long a stack waits for each of its apps to be healthy when it starts: on a machine of two cores running the
     * rest of the suite beside this module (bin/test), a Spring Boot app's start-up has taken more than 3 min.
     */
    static final Duration START_UP = Duration.ofMinutes(6);

    /** The file whose lock a stack holds while its apps start ({@link #startingAlone}). */
    private static final Path START_UP_LOCK = Path.of("target", "start-up.lock");

    /**
     * Holds the module's start-up lock until closed: the two test JVMs this module runs at once (its pom) then start
     * the stacks whose apps are processes of their own ({@link FaultStack}, {@link ClusterStack}) one at a time, and a
     * stack's time-outs count from when it holds the lock. Stacks in the test JVM ({@link Stack}) and apps a scenario
     * restarts start without it. Start-up is the busiest moment of a stack (four JVMs compiling and connecting); when
     * both forks' stacks started together beside the api's tests, apps missed their start-up time-outs (CI,
     * 2026-11-29: "api-1 not ready after PT3M").
     */
    static AutoCloseable startingAlone() throws IOException {
        Files.createDirectories(START_UP_LOCK.getParent());
        FileChannel channel = FileChannel.open(START_UP_LOCK, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.lock(); // blocks while the other test JVM's stack starts
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return () -> {
            try (channel) {
                lock.release();
            }
        };
    }

    /**
     * Waits until the app on {@code port} is {@link #healthy}. An app that exits before it ever was is started again,
     * {@link #START_RETRIES} times at most, as Kubernetes or compose restart a container whose start failed: on a
     * machine busy with more than the test, a child's first Redis Cluster connection once took longer than the api's 2 s
     * command time-out and the api stopped at start-up (api-2, ClusterFailoverTest under a CPU hog). Fails, with its
     * log, after that or at {@code timeout}.
     */
    static void awaitHealthy(HttpClient probe, ChildJvm app, int port, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int restarts = 0;
        while (!healthy(probe, port)) {
            if (!app.alive()) {
                if (restarts == START_RETRIES) {
                    throw new IllegalStateException(
                            app.name() + " exited at start-up " + (restarts + 1) + " times: see " + app.log());
                }
                restarts++;
                System.out.printf(
                        "%s exited at start-up (see %s); starting it again (%d)%n", app.name(), app.log(), restarts);
                try {
                    app.start();
                } catch (IOException notStarted) {
                    throw new java.io.UncheckedIOException(notStarted);
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(app.name() + " not ready after " + timeout + ": see " + app.log());
            }
            Thread.sleep(250);
        }
    }
}
