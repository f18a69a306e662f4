package com.flashcoupon.pipeline;

import com.flashcoupon.contract.Topics;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * An in-process KRaft broker (Kafka's own {@link KafkaClusterTestKit}, as spring-kafka-test's embedded broker) whose
 * listeners (clients' and controller's) take only SASL, with {@code StandardAuthorizer} and no access where no ACL grants it. The broker and
 * this class's admin authenticate with SASL/PLAIN as the test kit's super user ({@code plain-admin}); the apps'
 * users are SCRAM-SHA-512 users the admin creates, with the ACLs the test gives.
 */
final class ScramKafka implements AutoCloseable {

    private static final String ADMIN = "plain-admin";
    private static final String ADMIN_PASSWORD = "plain-admin-secret";

    private final KafkaClusterTestKit cluster;

    ScramKafka() throws Exception {
        TestKitNodes nodes = new TestKitNodes.Builder()
                .setCombined(true)
                .setNumBrokerNodes(1)
                .setNumControllerNodes(1)
                .setBrokerSecurityProtocol(SecurityProtocol.SASL_PLAINTEXT)
                .setControllerSecurityProtocol(SecurityProtocol.SASL_PLAINTEXT)
                .build();
        cluster = new KafkaClusterTestKit.Builder(nodes)
                // PLAIN for the broker itself and the admin (the test kit's JAAS file), SCRAM for the apps
                .setConfigProp("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512")
                .setConfigProp(
                        "listener.name.external.scram-sha-512.sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required;")
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("transaction.state.log.min.isr", "1")
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                .build();
        cluster.format();
        cluster.startup();
        cluster.waitForReadyBrokers();
    }

    String bootstrap() {
        return cluster.bootstrapServers();
    }

    /** The pipeline's topics, created by the admin as a platform does where the apps may not create them. */
    void createTopics(int partitions) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(
                                    Topics.ISSUE_REQUESTED,
                                    Topics.ISSUE_RESULT,
                                    Topics.ISSUE_REQUESTED_DEAD_LETTER,
                                    Topics.WALLET_CHANGED,
                                    Topics.ISSUE_RESULT_NOTIFY_RETRY,
                                    Topics.ISSUE_RESULT_NOTIFY_DEAD_LETTER)
                            .stream()
                            .map(topic -> new NewTopic(topic, partitions, (short) 1))
                            .toList())
                    .all()
                    .get();
        }
    }

    /** A SCRAM-SHA-512 user with these ACLs. */
    void addUser(String user, String password, List<AclBinding> acls) throws Exception {
        try (Admin admin = admin()) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                            user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), password)))
                    .all()
                    .get();
            admin.createAcls(acls).all().get();
        }
    }

    /** Client settings of a SCRAM user, as the apps' configuration writes them. */
    Map<String, Object> client(String user, String password) {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        config.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        config.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512");
        config.put(
                SaslConfigs.SASL_JAAS_CONFIG,
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                        + password + "\";");
        return config;
    }

    Admin admin() {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        config.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        config.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        config.put(
                SaslConfigs.SASL_JAAS_CONFIG,
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + ADMIN
                        + "\" password=\"" + ADMIN_PASSWORD + "\";");
        return Admin.create(config);
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
