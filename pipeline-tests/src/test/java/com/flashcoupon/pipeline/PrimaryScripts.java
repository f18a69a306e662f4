package com.flashcoupon.pipeline;

import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Each Redis Cluster primary's script calls (EVAL and EVALSHA) and the Redis CPU they took, from its {@code INFO
 * commandstats}: how the stock-shard measurements ({@link ShardStockClusterTest}, {@link ShardClusterMeasure}) see one
 * coupon's work spread over the primaries.
 */
final class PrimaryScripts {

    /** One primary's script calls and the CPU they took (µs). */
    record Scripts(long calls, long usec) {}

    private PrimaryScripts() {}

    /** Each primary's scripts since its last reset, by port; with {@code reset}, resets its counters after reading. */
    static Map<String, Scripts> read(StatefulRedisClusterConnection<String, String> connection, boolean reset) {
        connection.getPartitions().updateCache();
        Map<String, Scripts> all = new TreeMap<>();
        for (RedisClusterNode primary : connection.getPartitions()) {
            if (!primary.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                continue;
            }
            var node = connection
                    .getConnection(primary.getUri().getHost(), primary.getUri().getPort())
                    .sync();
            long calls = 0;
            long usec = 0;
            for (String line : node.info("commandstats").lines().toList()) {
                if (line.startsWith("cmdstat_eval:") || line.startsWith("cmdstat_evalsha:")) {
                    calls += Long.parseLong(line.replaceAll("^cmdstat_\\w+:calls=(\\d+),.*", "$1")
                            .strip());
                    usec += Long.parseLong(
                            line.replaceAll("^.*[:,]usec=(\\d+),.*", "$1").strip());
                }
            }
            all.put(Integer.toString(primary.getUri().getPort()), new Scripts(calls, usec));
            if (reset) {
                node.configResetstat();
            }
        }
        return all;
    }

    /** The table's header: one row per run and primary. */
    static String header() {
        return "| run | stock shards | primary | script calls | share | Redis CPU in scripts (ms) | µs per call |\n"
                + "| --- | --- | --- | --- | --- | --- | --- |\n";
    }

    /** One run's rows: each primary's calls, share of the run's calls, CPU and CPU per call. */
    static String rows(int run, int shards, Map<String, Scripts> used) {
        long all = used.values().stream().mapToLong(Scripts::calls).sum();
        StringBuilder rows = new StringBuilder();
        for (var primary : used.entrySet()) {
            Scripts one = primary.getValue();
            rows.append(String.format(
                    Locale.ROOT,
                    "| %d | %d | %s | %,d | %.1f%% | %.1f | %.1f |%n",
                    run,
                    shards,
                    primary.getKey(),
                    one.calls(),
                    100.0 * one.calls() / all,
                    one.usec() / 1_000.0,
                    one.calls() == 0 ? 0 : (double) one.usec() / one.calls()));
        }
        return rows.toString();
    }
}
