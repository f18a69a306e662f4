package com.flashcoupon.pipeline;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;

/**
 * Three KRaft brokers of the test's own, each its own process ({@code kafka.Kafka}, the jars already on the test class
 * path), each broker and controller at once (a quorum of three: one down leaves a majority). Replicated as a production
 * cluster is: internal topics with three replicas and {@code min.insync.replicas} 2; the apps create their own topics
 * with {@code coupon.kafka.replication-factor=3}. One broker can be killed ({@code kill -9}) and started again on its
 * data directory and ports; the processes are simplest to stop for real, which the embedded broker's are not.
 */
final class KafkaCluster implements AutoCloseable {

    static final int BROKERS = 3;

    private final Path dir;
    private final List<Integer> ports = new ArrayList<>();
    private final List<ChildJvm> brokers = new ArrayList<>();

    KafkaCluster() throws IOException, InterruptedException {
        dir = Files.createTempDirectory("flash-coupon-kafka-cluster");
        List<Integer> controllerPorts = new ArrayList<>();
        for (int i = 0; i < BROKERS; i++) {
            ports.add(ProcessKit.freePort());
            controllerPorts.add(ProcessKit.freePort());
        }
        String voters = java.util.stream.IntStream.range(0, BROKERS)
                .mapToObj(i -> (i + 1) + "@127.0.0.1:" + controllerPorts.get(i))
                .collect(Collectors.joining(","));
        String clusterId = Uuid.randomUuid().toString();
        // the three storage formats at once (a JVM each, about 5 s of start-up on a busy machine), then the brokers
        List<ChildJvm> formats = new ArrayList<>();
        try {
            for (int i = 0; i < BROKERS; i++) {
                Path config = dir.resolve("server-" + (i + 1) + ".properties");
                Files.writeString(
                        config,
                        String.join(
                                "\n",
                                List.of(
                                        "process.roles=broker,controller",
                                        "node.id=" + (i + 1),
                                        "controller.quorum.voters=" + voters,
                                        "listeners=PLAINTEXT://127.0.0.1:" + ports.get(i) + ",CONTROLLER://127.0.0.1:"
                                                + controllerPorts.get(i),
                                        "advertised.listeners=PLAINTEXT://127.0.0.1:" + ports.get(i),
                                        "controller.listener.names=CONTROLLER",
                                        "inter.broker.listener.name=PLAINTEXT",
                                        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                                        "log.dirs=" + dir.resolve("data-" + (i + 1)),
                                        "num.partitions=3",
                                        "default.replication.factor=3",
                                        "min.insync.replicas=2",
                                        "offsets.topic.replication.factor=3",
                                        "offsets.topic.num.partitions=3",
                                        "transaction.state.log.replication.factor=3",
                                        "transaction.state.log.min.isr=2",
                                        "share.coordinator.state.topic.replication.factor=3",
                                        "share.coordinator.state.topic.min.isr=2",
                                        "group.initial.rebalance.delay.ms=0",
                                        // a killed broker's partitions get new leaders as soon as the controller
                                        // notices (heartbeats every 500 ms, fenced after 6 s without one: defaults
                                        // kept, they are what production has)
                                        "")));
                var format = new ChildJvm(
                        "kafka-format-" + (i + 1),
                        List.of("-Xmx128m", ProcessKit.logbackOption()),
                        "kafka.tools.StorageTool",
                        List.of("format", "-t", clusterId, "-c", config.toString()));
                format.start();
                formats.add(format);
                brokers.add(new ChildJvm(
                        "kafka-" + (i + 1),
                        List.of("-Xmx256m", "-Xss512k", ProcessKit.logbackOption()),
                        "kafka.Kafka",
                        List.of(config.toString())));
            }
            for (int i = 0; i < BROKERS; i++) {
                ChildJvm format = formats.get(i);
                if (!format.waitFor(Duration.ofSeconds(90)) || format.exitValue() != 0) {
                    throw new IllegalStateException("formatting broker " + (i + 1) + " failed: see " + format.log());
                }
            }
            // all three at once: a controller waits for a majority of the quorum before anything else
            for (ChildJvm broker : brokers) {
                broker.start();
            }
            for (int i = 0; i < BROKERS; i++) {
                awaitListening(i);
            }
        } catch (IOException | RuntimeException | InterruptedException e) {
            for (ChildJvm format : formats) {
                format.close(); // one still running when another failed
            }
            close();
            throw e;
        }
    }

    /** Every broker, as the apps' {@code spring.kafka.bootstrap-servers}. */
    String bootstrap() {
        return ports.stream().map(port -> "127.0.0.1:" + port).collect(Collectors.joining(","));
    }

    /** {@code kill -9} of broker {@code index} (0, 1, 2): what reached its log files survives, nothing is shut down. */
    void kill(int index) throws InterruptedException {
        brokers.get(index).kill();
    }

    /** Starts a killed broker again on its data directory and ports, and waits until it listens. */
    void start(int index) throws IOException {
        brokers.get(index).start();
        awaitListening(index);
    }

    private void awaitListening(int index) {
        ChildJvm broker = brokers.get(index);
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            if (!broker.alive()) {
                throw new IllegalStateException("broker " + (index + 1) + " exited: see " + broker.log());
            }
            try (var socket = new Socket("127.0.0.1", ports.get(index))) {
                return;
            } catch (IOException notYet) {
                ProcessKit.pause(200);
            }
        }
        throw new IllegalStateException(
                "broker " + (index + 1) + " does not listen on " + ports.get(index) + ": see " + broker.log());
    }

    @Override
    public void close() throws InterruptedException {
        for (ChildJvm broker : brokers) {
            broker.close();
        }
        org.springframework.util.FileSystemUtils.deleteRecursively(dir.toFile());
    }
}
