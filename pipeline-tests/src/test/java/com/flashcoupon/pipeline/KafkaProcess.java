package com.flashcoupon.pipeline;

import com.flashcoupon.contract.Topics;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;

/**
 * A single-node KRaft broker of the test's own, run as its own process ({@code kafka.Kafka}, the jars already on the
 * test class path, the configuration of bin/lib/kafka.sh), so that it can be killed and started again on the same
 * data directory and ports. The embedded broker of the other tests lives in the test's JVM and cannot be stopped and
 * started again under clients that keep its address.
 */
final class KafkaProcess implements AutoCloseable {

    private final Path dir;
    private final int port;
    private final ChildJvm broker;

    KafkaProcess() throws IOException, InterruptedException {
        dir = Files.createTempDirectory("flash-coupon-kafka");
        port = ProcessKit.freePort();
        int controllerPort = ProcessKit.freePort();
        Path config = dir.resolve("server.properties");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        List.of(
                                "process.roles=broker,controller",
                                "node.id=1",
                                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                                "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                                "controller.listener.names=CONTROLLER",
                                "inter.broker.listener.name=PLAINTEXT",
                                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                                "log.dirs=" + dir.resolve("data"),
                                "num.partitions=1",
                                "offsets.topic.replication.factor=1",
                                "offsets.topic.num.partitions=3",
                                "transaction.state.log.replication.factor=1",
                                "transaction.state.log.min.isr=1",
                                "share.coordinator.state.topic.replication.factor=1",
                                "share.coordinator.state.topic.min.isr=1",
                                "default.replication.factor=1",
                                "min.insync.replicas=1",
                                "group.initial.rebalance.delay.ms=0",
                                "")));
        var format = new ChildJvm(
                "kafka-format",
                List.of("-Xmx128m", ProcessKit.logbackOption()),
                "kafka.tools.StorageTool",
                List.of("format", "-t", Uuid.randomUuid().toString(), "-c", config.toString()));
        format.start();
        if (!format.waitFor(Duration.ofSeconds(60)) || format.exitValue() != 0) {
            throw new IllegalStateException("formatting the broker's storage failed: see " + format.log());
        }
        broker = new ChildJvm(
                "kafka", List.of("-Xmx384m", ProcessKit.logbackOption()), "kafka.Kafka", List.of(config.toString()));
        start();
        createTopics();
    }

    String bootstrap() {
        return "127.0.0.1:" + port;
    }

    /** Starts the broker on its data directory and waits until it listens. */
    void start() throws IOException {
        broker.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            if (!broker.alive()) {
                throw new IllegalStateException("the broker exited: see " + broker.log());
            }
            try (var socket = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                ProcessKit.pause(200);
            }
        }
        throw new IllegalStateException("the broker does not listen on " + port + ": see " + broker.log());
    }

    /** As a crash: what reached the log files survives (they are in the page cache), nothing is shut down. */
    void kill() throws InterruptedException {
        broker.kill();
    }

    /** The topics as the apps create them (3 partitions), before the apps start, so that neither races the other. */
    private void createTopics() {
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                60_000))) {
            admin.createTopics(List.of(
                            new NewTopic(Topics.ISSUE_REQUESTED, 3, (short) 1),
                            new NewTopic(Topics.ISSUE_RESULT, 3, (short) 1),
                            new NewTopic(Topics.ISSUE_REQUESTED_DEAD_LETTER, 3, (short) 1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("could not create the topics: see " + broker.log(), e);
        }
    }

    @Override
    public void close() throws InterruptedException, IOException {
        broker.close();
        org.springframework.util.FileSystemUtils.deleteRecursively(dir);
    }
}
