import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Checks that a Kafka broker really works, not only that its port answers: creates a topic, waits for its leader,
 * deletes it. Used by bin/up after it started the local broker; run with the source launcher on the kafka-local
 * classpath:
 *
 * <pre>java -cp "$(cat .run/kafka/classpath.txt)" bin/lib/KafkaCheck.java 127.0.0.1:9092 [REPLICAS]</pre>
 *
 * With FC_KAFKA_ADMIN_PASSWORD set it authenticates as the administrator ({@link #admin}).
 *
 * REPLICAS (default 1) is the test topic's replication factor: bin/up --cluster asks for 3, so the check fails until
 * all three brokers of its quorum serve.
 *
 * Exit status 0 and one line on stdout when it works; a stack trace and status 1 when it does not.
 */
public class KafkaCheck {

    /**
     * The administrator's SASL/SCRAM-SHA-512 settings when {@code FC_KAFKA_ADMIN_PASSWORD} is set (bin/up --cluster,
     * whose brokers authenticate every client), as {@code FC_KAFKA_ADMIN_USER} (default coupon-admin); none otherwise.
     */
    static Map<String, Object> admin() {
        String password = System.getenv("FC_KAFKA_ADMIN_PASSWORD");
        if (password == null || password.isEmpty()) {
            return Map.of();
        }
        String user = System.getenv().getOrDefault("FC_KAFKA_ADMIN_USER", "coupon-admin");
        return Map.of(
                "security.protocol", "SASL_PLAINTEXT",
                "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                        + password + "\";");
    }

    private static final String TOPIC = "flash-coupon.bin-up.check";

    public static void main(String[] args) throws Exception {
        String bootstrap = args.length > 0 ? args[0] : "127.0.0.1:9092";
        short replicas = args.length > 1 ? Short.parseShort(args[1]) : 1;
        Map<String, Object> config = new java.util.HashMap<>(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
        config.putAll(admin());
        try (Admin admin = Admin.create(config)) {
            var cluster = admin.describeCluster();
            String clusterId = cluster.clusterId().get(30, TimeUnit.SECONDS);
            int brokers = cluster.nodes().get(30, TimeUnit.SECONDS).size();
            try {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, replicas)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            var leader = admin.describeTopics(List.of(TOPIC))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(TOPIC)
                    .partitions()
                    .get(0)
                    .leader();
            if (leader == null) {
                throw new IllegalStateException("topic " + TOPIC + " has no leader");
            }
            admin.deleteTopics(List.of(TOPIC)).all().get(30, TimeUnit.SECONDS);
            System.out.printf(
                    "Kafka works: cluster %s, %d broker(s), created and deleted topic %s (%d replica(s), leader: broker"
                            + " %d)%n",
                    clusterId, brokers, TOPIC, replicas, leader.id());
        }
    }
}
