package com.flashcoupon.deploy;

import static com.flashcoupon.deploy.KubernetesManifestsTest.all;
import static com.flashcoupon.deploy.KubernetesManifestsTest.one;
import static com.flashcoupon.deploy.KubernetesManifestsTest.render;
import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.contract.KafkaAccess;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.strimzi.api.kafka.model.user.KafkaUser;
import io.strimzi.api.kafka.model.user.KafkaUserAuthorizationSimple;
import io.strimzi.api.kafka.model.user.KafkaUserScramSha512ClientAuthentication;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AclBinding;
import org.junit.jupiter.api.Test;

/**
 * The manifests' data plane checks who writes (docs/operations.md "Who may write what"): each app is its own user of
 * MySQL, Redis and Kafka with its passwords from a Secret of its own (which the other app never reads), Kafka over
 * SASL_SSL and Redis over TLS, and the Strimzi KafkaUsers grant exactly the contract's {@link KafkaAccess}.
 */
class DataPlaneManifestsTest {

    @Test
    void eachAppIsItsOwnUserWithItsPasswordsFromItsOwnSecret() throws Exception {
        for (String overlay : List.of(".", "overlays/small-sale", "overlays/large-sale")) {
            List<Map<String, Object>> objects = render(overlay);
            Container api = one(objects, Deployment.class, "api")
                    .getSpec()
                    .getTemplate()
                    .getSpec()
                    .getContainers()
                    .getFirst();
            Container worker = one(objects, StatefulSet.class, "issuer-worker")
                    .getSpec()
                    .getTemplate()
                    .getSpec()
                    .getContainers()
                    .getFirst();

            assertOwnUser(api, "coupon-api", "flash-coupon-api", overlay);
            assertOwnUser(worker, "coupon-worker", "flash-coupon-worker", overlay);
            assertThat(secretsRead(api))
                    .as("%s: the api reads none of the worker's secrets", overlay)
                    .doesNotContain("flash-coupon-worker");
            assertThat(secretsRead(worker))
                    .as("%s: the worker reads none of the api's secrets", overlay)
                    .doesNotContain("flash-coupon-api");
            assertThat(value(worker, "COUPON_DB_MIGRATE"))
                    .as("%s: the worker never migrates", overlay)
                    .isEqualTo("false");
            assertThat(api.getEnv()).extracting(EnvVar::getName).contains("COUPON_DB_MIGRATION_USER");

            ConfigMap config = one(objects, ConfigMap.class, "flash-coupon-config");
            assertThat(config.getData())
                    .containsEntry("COUPON_KAFKA_SECURITY_PROTOCOL", "SASL_SSL")
                    .containsEntry("COUPON_REDIS_TLS", "true");
        }
    }

    @Test
    void theKafkaUsersGrantExactlyTheContractsAccess() throws Exception {
        List<KafkaUser> users = all(render("kafka-topics"), KafkaUser.class);
        assertThat(users)
                .extracting(user -> user.getMetadata().getName())
                .containsExactlyInAnyOrder(KafkaAccess.API_USER, KafkaAccess.WORKER_USER);
        for (KafkaUser user : users) {
            String name = user.getMetadata().getName();
            assertThat(user.getSpec().getAuthentication()).isInstanceOf(KafkaUserScramSha512ClientAuthentication.class);
            Set<String> granted = ((KafkaUserAuthorizationSimple) user.getSpec().getAuthorization())
                    .getAcls().stream()
                            .flatMap(rule -> rule.getOperations().stream()
                                    .map(operation -> rule.getResource().getType() + ":"
                                            + name(rule.getResource()) + ":"
                                            + operation.toValue().toLowerCase(Locale.ROOT)))
                            .collect(Collectors.toCollection(TreeSet::new));
            List<AclBinding> expected =
                    name.equals(KafkaAccess.API_USER) ? KafkaAccess.api(name) : KafkaAccess.worker(name);
            assertThat(granted)
                    .as("%s's ACLs", name)
                    .isEqualTo(expected.stream()
                            .map(acl -> acl.pattern().resourceType().name().toLowerCase(Locale.ROOT) + ":"
                                    + acl.pattern().name() + ":"
                                    + acl.entry().operation().name().toLowerCase(Locale.ROOT))
                            .collect(Collectors.toCollection(TreeSet::new)));
        }
    }

    private static String name(io.strimzi.api.kafka.model.user.acl.AclRuleResource resource) {
        if (resource instanceof io.strimzi.api.kafka.model.user.acl.AclRuleTopicResource topic) {
            return topic.getName();
        }
        if (resource instanceof io.strimzi.api.kafka.model.user.acl.AclRuleGroupResource group) {
            return group.getName();
        }
        return resource.getType();
    }

    /** Its own user names, and every password from the key of the same name in its own Secret, required. */
    private static void assertOwnUser(Container container, String user, String secret, String overlay) {
        assertThat(value(container, "COUPON_REDIS_USER")).isEqualTo(user);
        assertThat(value(container, "COUPON_KAFKA_USER")).isEqualTo(user);
        for (String variable :
                List.of("COUPON_DB_USER", "COUPON_DB_PASSWORD", "COUPON_REDIS_PASSWORD", "COUPON_KAFKA_PASSWORD")) {
            assertThat(container.getEnv())
                    .as("%s, %s: %s from the Secret %s", overlay, container.getName(), variable, secret)
                    .anySatisfy(env -> {
                        assertThat(env.getName()).isEqualTo(variable);
                        var key = env.getValueFrom().getSecretKeyRef();
                        assertThat(key.getName()).isEqualTo(secret);
                        assertThat(key.getKey()).isEqualTo(variable);
                        assertThat(key.getOptional()).as("required").isNotEqualTo(Boolean.TRUE);
                    });
        }
    }

    private static String value(Container container, String variable) {
        return container.getEnv().stream()
                .filter(env -> env.getName().equals(variable))
                .map(EnvVar::getValue)
                .findFirst()
                .orElse(null);
    }

    private static Set<String> secretsRead(Container container) {
        Set<String> secrets = new TreeSet<>();
        container.getEnvFrom().stream()
                .filter(from -> from.getSecretRef() != null)
                .forEach(from -> secrets.add(from.getSecretRef().getName()));
        container.getEnv().stream()
                .filter(env -> env.getValueFrom() != null && env.getValueFrom().getSecretKeyRef() != null)
                .forEach(env -> secrets.add(env.getValueFrom().getSecretKeyRef().getName()));
        return secrets;
    }
}
