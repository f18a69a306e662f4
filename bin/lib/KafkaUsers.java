import com.flashcoupon.contract.KafkaAccess;
import com.flashcoupon.contract.Topics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;

/**
 * Gives a Kafka that authenticates every client (bin/up --cluster) what the apps need: the pipeline's topics (created
 * when missing, with the apps' own settings: Topics.configs), the SCRAM-SHA-512 users coupon-api and coupon-worker with
 * the passwords of FC_KAFKA_API_PASSWORD and FC_KAFKA_WORKER_PASSWORD, and their ACLs (the contract's KafkaAccess),
 * as the administrator (FC_KAFKA_ADMIN_USER, default coupon-admin, and FC_KAFKA_ADMIN_PASSWORD). Run with the source launcher on the kafka-local classpath and the contract
 * module's classes:
 *
 * <pre>java -cp "$(cat .run/kafka/classpath.txt):contract/target/classes" bin/lib/KafkaUsers.java BOOTSTRAP PARTITIONS REPLICAS</pre>
 *
 * Running it again changes nothing but the passwords.
 */
public class KafkaUsers {

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        int partitions = Integer.parseInt(args[1]);
        short replicas = Short.parseShort(args[2]);
        Map<String, Object> config = new HashMap<>(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
        // as KafkaCheck.admin: one source file each, for the source launcher of Java 21
        String user = System.getenv().getOrDefault("FC_KAFKA_ADMIN_USER", "coupon-admin");
        config.put("security.protocol", "SASL_PLAINTEXT");
        config.put("sasl.mechanism", "SCRAM-SHA-512");
        config.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                        + env("FC_KAFKA_ADMIN_PASSWORD") + "\";");
        try (Admin admin = Admin.create(config)) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = new ArrayList<>();
            for (String topic : List.of(
                    Topics.ISSUE_REQUESTED,
                    Topics.ISSUE_RESULT,
                    Topics.ISSUE_REQUESTED_DEAD_LETTER,
                    Topics.WALLET_CHANGED,
                    Topics.ISSUE_RESULT_NOTIFY_RETRY,
                    Topics.ISSUE_RESULT_NOTIFY_DEAD_LETTER)) {
                if (!existing.contains(topic)) {
                    missing.add(new NewTopic(topic, partitions, replicas).configs(Topics.configs(replicas)));
                }
            }
            admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
            admin.alterUserScramCredentials(List.of(
                            upsert(KafkaAccess.API_USER, env("FC_KAFKA_API_PASSWORD")),
                            upsert(KafkaAccess.WORKER_USER, env("FC_KAFKA_WORKER_PASSWORD"))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            List<org.apache.kafka.common.acl.AclBinding> acls = new ArrayList<>(KafkaAccess.api(KafkaAccess.API_USER));
            acls.addAll(KafkaAccess.worker(KafkaAccess.WORKER_USER));
            admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
            System.out.printf(
                    "Kafka users: %s and %s (SCRAM-SHA-512), %d ACLs; %d topic(s) created%n",
                    KafkaAccess.API_USER, KafkaAccess.WORKER_USER, acls.size(), missing.size());
        }
    }

    private static UserScramCredentialUpsertion upsert(String user, String password) {
        return new UserScramCredentialUpsertion(
                user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), password);
    }

    private static String env(String name) {
        String value = System.getenv(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(name + " is not set");
        }
        return value;
    }
}
