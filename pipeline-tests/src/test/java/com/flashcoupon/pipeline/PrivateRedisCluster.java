package com.flashcoupon.pipeline;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of the test's own: three masters and three replicas, each a {@code redis-server} process on a free
 * port with a directory of its own, AOF and {@code appendfsync always} as the shipped configs have it, created with
 * {@code redis-cli --cluster create ... --cluster-replicas 1}. A test can {@code kill -9} the master that owns a key's
 * slot ({@link #killMasterOf}), wait until its replica is promoted, and start the killed node again
 * ({@link #restart}): it comes back from its AOF and its {@code nodes.conf} as a replica of the new master.
 */
final class PrivateRedisCluster implements AutoCloseable {

    /**
     * How long a master may be silent before the others mark it failed and its replica takes over. Redis' default is
     * 15 s; 2 s keeps a failover scenario short. The apps' Lettuce client refreshes its topology on the failed
     * connection (adaptive refresh) and periodically.
     */
    static final int NODE_TIMEOUT_MILLIS = 2_000;

    private static final int NODES = 6;

    private final Path dir;
    private final Map<Integer, Process> nodes = new LinkedHashMap<>();
    /** Each node's cluster bus port, set explicitly: a free port plus 10,000 (Redis' default) may be taken or > 65535. */
    private final Map<Integer, Integer> busPorts = new LinkedHashMap<>();

    PrivateRedisCluster() throws IOException, InterruptedException {
        dir = Files.createTempDirectory("flash-coupon-redis-cluster");
        try {
            for (int i = 0; i < NODES; i++) {
                // a port found free may be taken by another process (a test in the other fork) before the node binds
                // it: the node then exits at once, and is started again on other ports
                for (int attempt = 1; ; attempt++) {
                    int port = ProcessKit.freePort();
                    Files.createDirectories(dir.resolve(Integer.toString(port)));
                    nodes.put(port, null);
                    busPorts.put(port, ProcessKit.freePort());
                    if (start(port)) {
                        break;
                    }
                    nodes.remove(port);
                    busPorts.remove(port);
                    if (attempt == 5) {
                        throw new IllegalStateException("no redis-server node started in 5 tries: see " + dir);
                    }
                }
            }
            List<String> create = new ArrayList<>(List.of("--cluster", "create"));
            nodes.keySet().forEach(port -> create.add("127.0.0.1:" + port));
            create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
            String created = cli(firstPort(), Duration.ofSeconds(60), create.toArray(String[]::new));
            if (!created.contains("[OK] All 16384 slots covered")) {
                throw new IllegalStateException("redis-cli --cluster create failed:\n" + created);
            }
            awaitHealthy(Duration.ofSeconds(60));
        } catch (IOException | InterruptedException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** A Lettuce client of the cluster, seeded with every node (the caller shuts it down). */
    io.lettuce.core.cluster.RedisClusterClient client() {
        return io.lettuce.core.cluster.RedisClusterClient.create(java.util.Arrays.stream(nodes().split(","))
                .map(node -> io.lettuce.core.RedisURI.create("redis://" + node))
                .toList());
    }

    /** The nodes as the apps take them: {@code host:port,...} ({@code coupon.redis.cluster-nodes}). */
    String nodes() {
        return nodes.keySet().stream().map(port -> "127.0.0.1:" + port).collect(Collectors.joining(","));
    }

    /**
     * Every live master loses its data at once ({@code FLUSHALL}, which its replica follows and its AOF keeps): a
     * cluster that lost everything, as one rebuilt empty would be, with its nodes and slots as they were.
     */
    void flushAll() throws IOException, InterruptedException {
        for (String line : clusterNodes(anyLivePort())) {
            String[] fields = line.split(" ");
            if (fields[2].contains("master") && !fields[2].contains("fail")) {
                cli(portOf(fields[1]), Duration.ofSeconds(10), "FLUSHALL");
            }
        }
    }

    /**
     * The master that owns {@code key}'s slot loses every key it holds (FLUSHALL, which its replica follows): what a
     * primary and its replica lost together leave, the other masters keeping theirs.
     */
    void flushMasterOf(String key) throws IOException, InterruptedException {
        cli(masterOf(key), Duration.ofSeconds(10), "FLUSHALL");
    }

    /** The port of the master that owns {@code key}'s slot now. */
    int masterOf(String key) throws IOException, InterruptedException {
        int slot = Integer.parseInt(cli(anyLivePort(), Duration.ofSeconds(5), "CLUSTER", "KEYSLOT", key)
                .strip());
        for (String line : clusterNodes(anyLivePort())) {
            String[] fields = line.split(" ");
            if (!fields[2].contains("master") || fields[2].contains("fail")) {
                continue;
            }
            for (int i = 8; i < fields.length; i++) {
                String[] range = fields[i].split("-");
                if (range[0].startsWith("[")) {
                    continue; // a slot being migrated
                }
                int from = Integer.parseInt(range[0]);
                int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
                if (slot >= from && slot <= to) {
                    return portOf(fields[1]);
                }
            }
        }
        throw new IllegalStateException("no live master owns slot " + slot + " of " + key);
    }

    /**
     * Writes more than the kernel's socket buffers hold between the master and its frozen replica (loopback TCP buffers
     * take a few megabytes; 32 MB here, in keys of the same slot as {@code key} so that they go to the same master and
     * replica): what the master writes after this stays in its own output buffer and dies with it. Without it a frozen
     * replica would lose nothing: the kernel keeps receiving its stream for it, and it reads that on waking.
     */
    private void fillReplicationLink(int master, String key) throws IOException, InterruptedException {
        Path ballast = dir.resolve("ballast");
        if (!Files.exists(ballast)) {
            Files.write(ballast, "x".repeat(8 << 20).getBytes(StandardCharsets.US_ASCII));
        }
        for (int i = 0; i < 4; i++) {
            Process set = new ProcessBuilder(
                            "redis-cli",
                            "-h",
                            "127.0.0.1",
                            "-p",
                            Integer.toString(master),
                            "-x",
                            "SET",
                            key + ":ballast-" + i)
                    .redirectInput(ballast.toFile())
                    .redirectErrorStream(true)
                    .start();
            String output = new String(set.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (set.waitFor() != 0 || !output.strip().equals("OK")) {
                throw new IOException("writing the ballast to " + master + " failed: " + output);
            }
        }
    }

    /** The port of the replica of the master on {@code masterPort}. */
    int replicaOf(int masterPort) throws IOException, InterruptedException {
        String masterId =
                cli(masterPort, Duration.ofSeconds(5), "CLUSTER", "MYID").strip();
        for (String line : clusterNodes(masterPort)) {
            String[] fields = line.split(" ");
            if (fields[2].contains("slave") && fields[3].equals(masterId) && !fields[2].contains("fail")) {
                return portOf(fields[1]);
            }
        }
        throw new IllegalStateException("the master on " + masterPort + " has no replica");
    }

    private void signal(int port, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder(
                        "kill", signal, Long.toString(nodes.get(port).pid()))
                .redirectErrorStream(true)
                .start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill " + signal + " of the node on " + port + " failed");
        }
    }

    /** {@code GET key} on whichever master owns it now ({@code redis-cli -c} follows the redirection). */
    String get(String key) throws IOException, InterruptedException {
        return command("GET", key);
    }

    /** Any command on whichever master owns its key now; its reply as redis-cli prints it. */
    String command(String... command) throws IOException, InterruptedException {
        List<String> arguments = new java.util.ArrayList<>(List.of("-c"));
        arguments.addAll(List.of(command));
        return cli(anyLivePort(), Duration.ofSeconds(5), arguments.toArray(String[]::new))
                .strip();
    }

    /** What a failover did: the master killed, the replica promoted in its place, and how long that took. */
    record Failover(int killedPort, int promotedPort, Duration took) {}

    /**
     * {@code kill -9} of the master that owns {@code key}'s slot; returns once another node (its replica) owns the slot
     * as master and every live node reports {@code cluster_state:ok}. The killed node stays down until
     * {@link #restart}.
     */
    Failover killMasterOf(String key, Duration timeout) throws IOException, InterruptedException {
        return killMasterOf(key, Duration.ZERO, timeout);
    }

    /**
     * The same, with a replica behind its master: the replica is frozen ({@code SIGSTOP}, as a long pause or a cut
     * replication link would hold it) for {@code replicaBehind} before the kill and thawed right after it, so that
     * whatever the master acknowledged meanwhile never reached the node that takes over (see
     * {@link #fillReplicationLink}). Kept under the node time-out, so that the others never see the replica itself as
     * failed.
     */
    Failover killMasterOf(String key, Duration replicaBehind, Duration timeout)
            throws IOException, InterruptedException {
        int master = masterOf(key);
        Integer replica = null;
        if (!replicaBehind.isZero()) {
            if (replicaBehind.toMillis() >= NODE_TIMEOUT_MILLIS) {
                throw new IllegalArgumentException("a replica frozen that long would be marked failed itself");
            }
            replica = replicaOf(master);
            long frozenAt = System.nanoTime();
            signal(replica, "-STOP");
            fillReplicationLink(master, key);
            long left = replicaBehind.toMillis() - (System.nanoTime() - frozenAt) / 1_000_000;
            if (left > 0) {
                Thread.sleep(left);
            }
        }
        long killedAt = System.nanoTime();
        Process process = nodes.get(master);
        process.destroyForcibly();
        process.waitFor();
        if (replica != null) {
            signal(replica, "-CONT");
        }
        long deadline = killedAt + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                int owner = masterOf(key);
                if (owner != master && allLiveNodesOk()) {
                    return new Failover(master, owner, Duration.ofNanos(System.nanoTime() - killedAt));
                }
            } catch (IllegalStateException | IOException notYet) {
                // the slot has no live master until the replica is promoted
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no replica took over the slot of " + key + " within " + timeout + ":\n"
                + String.join("\n", clusterNodes(anyLivePort())));
    }

    /**
     * Starts a killed node again on its port, directory, AOF and {@code nodes.conf}, and waits until it is a connected
     * replica again (the cluster demotes a returning master whose slots were taken over) and the cluster is ok.
     */
    void restart(int port, Duration timeout) throws IOException, InterruptedException {
        if (!start(port)) {
            throw new IllegalStateException("redis-server did not start again on port " + port + ": see " + dir);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                String replication = cli(port, Duration.ofSeconds(5), "INFO", "replication");
                if (replication.contains("role:slave")
                        && replication.contains("master_link_status:up")
                        && allLiveNodesOk()) {
                    return;
                }
            } catch (IOException notYet) {
                // loading its AOF
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("node " + port + " did not come back as a replica within " + timeout);
    }

    /** Every live node says {@code cluster_state:ok} and knows no node it considers failed except dead ones. */
    private boolean allLiveNodesOk() throws IOException, InterruptedException {
        for (var node : nodes.entrySet()) {
            if (node.getValue() == null || !node.getValue().isAlive()) {
                continue;
            }
            if (!cli(node.getKey(), Duration.ofSeconds(5), "CLUSTER", "INFO").contains("cluster_state:ok")) {
                return false;
            }
        }
        return true;
    }

    /** All nodes ok, and every master has its replica connected (so a failover has someone to promote). */
    private void awaitHealthy(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (allLiveNodesOk()) {
                boolean replicated = true;
                for (int port : nodes.keySet()) {
                    String replication = cli(port, Duration.ofSeconds(5), "INFO", "replication");
                    if (replication.contains("role:slave") && !replication.contains("master_link_status:up")) {
                        replicated = false;
                    }
                }
                if (replicated) {
                    return;
                }
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(
                "the cluster is not ok after " + timeout + ":\n" + String.join("\n", clusterNodes(anyLivePort())));
    }

    /** Starts the node on its port; false when it exited before listening (its port or bus port was taken). */
    private boolean start(int port) throws IOException {
        Path nodeDir = dir.resolve(Integer.toString(port));
        Process process = new ProcessBuilder(List.of(
                        "redis-server",
                        "--port",
                        Integer.toString(port),
                        "--bind",
                        "127.0.0.1",
                        "--dir",
                        nodeDir.toString(),
                        "--save",
                        "",
                        "--appendonly",
                        "yes",
                        "--appendfsync",
                        "always",
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        "nodes.conf",
                        "--cluster-port",
                        Integer.toString(busPorts.get(port)),
                        "--cluster-node-timeout",
                        Integer.toString(NODE_TIMEOUT_MILLIS),
                        // as bin/up --cluster: a primary without a replica refuses writes (NOREPLICAS, a 503)
                        "--min-replicas-to-write",
                        "1",
                        "--min-replicas-max-lag",
                        "10"))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        nodeDir.resolve("redis.log").toFile()))
                .start();
        nodes.put(port, process);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            try (var socket = new Socket("127.0.0.1", port)) {
                return true;
            } catch (IOException notYet) {
                if (!process.isAlive()) {
                    return false;
                }
                ProcessKit.pause(100);
            }
        }
        throw new IllegalStateException("redis-server did not start on port " + port + ": see " + nodeDir);
    }

    private List<String> clusterNodes(int port) throws IOException, InterruptedException {
        return cli(port, Duration.ofSeconds(5), "CLUSTER", "NODES")
                .lines()
                .filter(line -> !line.isBlank())
                .toList();
    }

    private int anyLivePort() {
        return nodes.entrySet().stream()
                .filter(node -> node.getValue() != null && node.getValue().isAlive())
                .map(Map.Entry::getKey)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no Redis node is running"));
    }

    private int firstPort() {
        return nodes.keySet().iterator().next();
    }

    /** {@code 127.0.0.1:7000@17000} to 7000. */
    private static int portOf(String address) {
        String hostPort = address.split("@")[0];
        return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    }

    /** One {@code redis-cli} call; its output, or an IOException when it fails (a node down). */
    private static String cli(int port, Duration timeout, String... arguments)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IOException("redis-cli " + String.join(" ", arguments) + " did not answer within " + timeout);
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.exitValue() != 0 || output.startsWith("Could not connect") || output.startsWith("ERR")) {
            throw new IOException("redis-cli -p " + port + " " + String.join(" ", arguments) + ": " + output);
        }
        return output;
    }

    @Override
    public void close() throws InterruptedException {
        for (Process process : nodes.values()) {
            if (process != null && process.isAlive()) {
                process.destroyForcibly();
                process.waitFor();
            }
        }
        org.springframework.util.FileSystemUtils.deleteRecursively(dir.toFile());
    }
}
