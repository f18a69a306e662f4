package com.flashcoupon.pipeline;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A main class run as a process of its own, with this JVM's java binary and class path, so that a test can kill it as
 * {@code kill -9} does ({@link #kill()}: no shutdown hook, no graceful anything) and start it again with the same
 * arguments. Its output goes to a log file under {@code target/faults/}, appended across restarts.
 *
 * <p>It does not outlive this JVM: it runs under {@link OrphanGuard}, which ends it (as {@code kill -9} would) when this
 * JVM's process exits or its end of the child's standard input closes, so a test JVM that is killed, or dies before
 * its {@code close()}, leaves no app running on the machine.
 */
final class ChildJvm implements AutoCloseable {

    static final Path LOGS = Path.of("target", "faults");

    private final String name;
    private final List<String> command;
    private final Path log;
    private Process process;

    ChildJvm(String name, List<String> jvmOptions, String mainClass, List<String> arguments) {
        this(name, jvmOptions, List.of(), mainClass, arguments);
    }

    /**
     * With {@code classPathFirst} ahead of this JVM's class path: what is there shadows the same resource of the apps
     * (the failover tests swap a Lua script this way to switch a safeguard off).
     */
    ChildJvm(
            String name, List<String> jvmOptions, List<Path> classPathFirst, String mainClass, List<String> arguments) {
        this.name = name;
        this.log = LOGS.resolve(name + ".log");
        String java = ProcessHandle.current().info().command().orElse("java");
        command = new ArrayList<>();
        command.add(java);
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.addAll(jvmOptions);
        command.add("-cp");
        List<String> classPath = new ArrayList<>();
        classPathFirst.forEach(entry -> classPath.add(entry.toAbsolutePath().toString()));
        classPath.add(System.getProperty("java.class.path"));
        command.add(String.join(File.pathSeparator, classPath));
        command.add(OrphanGuard.class.getName());
        command.add(Long.toString(ProcessHandle.current().pid()));
        command.add(mainClass);
        command.addAll(arguments);
    }

    synchronized void start() throws IOException {
        Files.createDirectories(LOGS);
        Files.writeString(
                log,
                "---- start " + java.time.Instant.now() + "\n",
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
        process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
    }

    /** As {@code kill -9}: the process ends at once, whatever it was doing. */
    synchronized void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor();
        }
    }

    /** Waits for a process that ends by itself (a tool); true when it ended in time. */
    boolean waitFor(java.time.Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    int exitValue() {
        return process.exitValue();
    }

    synchronized boolean alive() {
        return process != null && process.isAlive();
    }

    /** The running process's id (the apps put it in their drain lease owner, {@code pid@host/...}). */
    synchronized long pid() {
        return process.pid();
    }

    String name() {
        return name;
    }

    Path log() {
        return log;
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }

    /**
     * A logback configuration for a main class that is not a Spring Boot app (the broker, its storage tool): logback
     * with no configuration logs everything at DEBUG. Spring Boot apps set their own levels.
     */
    static synchronized Path logbackConfig() {
        Path config = LOGS.resolve("logback-child.xml");
        try {
            Files.createDirectories(LOGS);
            Files.writeString(config, """
                    <configuration>
                      <appender name="out" class="ch.qos.logback.core.ConsoleAppender">
                        <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
                      </appender>
                      <logger name="org.apache.kafka" level="WARN"/>
                      <logger name="kafka" level="WARN"/>
                      <root level="INFO"><appender-ref ref="out"/></root>
                    </configuration>
                    """);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return config;
    }
}
