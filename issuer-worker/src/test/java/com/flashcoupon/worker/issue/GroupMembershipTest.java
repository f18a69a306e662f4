package com.flashcoupon.worker.issue;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.worker.config.WorkerProperties;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;

/**
 * How the worker joins its consumer group: a session timeout shorter than Kafka's 45 s, and static membership only
 * when an instance id is given (an empty {@code group.instance.id} is an error in Kafka, and two workers sharing one
 * fence each other). The restart it buys is measured by pipeline-tests' FaultSuiteTest.
 */
class GroupMembershipTest {

    @Test
    void shouldJoinAsADynamicMemberWithATenSecondSessionWhenNoInstanceIdIsSet() {
        Map<String, Object> configs = consumerConfigs(Map.of());

        assertThat(configs).doesNotContainKey(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        assertThat(configs)
                .containsEntry(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000)
                .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 3_000);
    }

    @Test
    void shouldJoinAsAStaticMemberWhenAnInstanceIdIsSet() {
        Map<String, Object> configs =
                consumerConfigs(Map.of("coupon.worker.instance-id", "worker-a", "coupon.worker.session-timeout", "6s"));

        assertThat(configs)
                .containsEntry(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "worker-a")
                .containsEntry(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000)
                .containsEntry(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 2_000);
    }

    /** docker-compose.yml sets {@code worker-$${HOSTNAME}}: the app resolves the container's own host name. */
    @Test
    void shouldResolveThePlaceholderComposePassesThrough() {
        Map<String, Object> configs = consumerConfigs(new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                Map.of("COUPON_WORKER_INSTANCE_ID", "worker-${HOSTNAME}", "HOSTNAME", "3f2a9c1b7d4e")));

        assertThat(configs).containsEntry(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "worker-3f2a9c1b7d4e");
    }

    private static Map<String, Object> consumerConfigs(Map<String, Object> properties) {
        return consumerConfigs(new MapPropertySource("test", properties));
    }

    private static Map<String, Object> consumerConfigs(PropertySource<?> properties) {
        var sources = new MutablePropertySources();
        sources.addFirst(properties);
        var binder = new Binder(
                ConfigurationPropertySources.from(sources), new PropertySourcesPlaceholdersResolver(sources));
        WorkerProperties worker = binder.bindOrCreate("coupon.worker", Bindable.of(WorkerProperties.class));
        var factory = new DefaultKafkaConsumerFactory<Object, Object>(new HashMap<>());
        new IssueKafkaConfig().maxBatchCustomizer(worker).customize(factory);
        return factory.getConfigurationProperties();
    }
}
