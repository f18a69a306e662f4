package com.flashcoupon.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.flashcoupon.contract.Topics;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/kubernetes checked offline (no cluster can run here): each kustomization rendered with the installed kubectl,
 * every object parsed into its API's typed model with no unknown field, and what a cluster depends on checked in the
 * parsed objects: probes, graceful shutdown, resources, zone spread, static membership, PDBs, readiness without the
 * backing services, topics the apps may not change, the alert rules the same as deploy/prometheus/alerts.yml.
 */
class KubernetesManifestsTest {

    static final Path ROOT = root();

    /** The committed report whose api CPU per admission is bin/plan's default figure. */
    static final String PLAN_REPORT = "docs/benchmarks/2026-11-26-redeem-repeated/after-2";

    static final Path KUBERNETES = ROOT.resolve("deploy/kubernetes");

    static Stream<String> kustomizations() {
        return Stream.of(
                ".", "base", "kafka-topics", "overlays/small-sale", "overlays/large-sale", "overlays/without-keda");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kustomizations")
    void everyObjectRendersAndParsesIntoItsTypedModelWithoutUnknownFields(String kustomization) throws Exception {
        List<Map<String, Object>> objects = render(kustomization);

        assertThat(objects).as("objects rendered from %s", kustomization).isNotEmpty();
        for (Map<String, Object> object : objects) {
            String type = TypedManifests.type(object);
            if (TypedManifests.UNTYPED.contains(type)) {
                continue;
            }
            assertThat(TypedManifests.MODELS).as("a model for %s", type).containsKey(type);
            Object parsed = TypedManifests.parse(object);
            assertThat(TypedManifests.unknownFields(parsed))
                    .as("fields of %s %s unknown to its API (misspelt?)", type, name(object))
                    .isEmpty();
        }
    }

    /** The checker itself: a misspelt field deep in a pod template is named, not swallowed. */
    @Test
    void aMisspeltFieldIsFound() {
        Map<String, Object> manifest = new Yaml().load("""
                        apiVersion: apps/v1
                        kind: Deployment
                        metadata: {name: api}
                        spec:
                          replicaz: 3
                          selector: {matchLabels: {app: api}}
                          template:
                            metadata: {labels: {app: api}}
                            spec:
                              containers:
                                - name: api
                                  image: flash-coupon/api
                                  readinesProbe: {httpGet: {path: /, port: 8080}}
                        """);
        assertThat(TypedManifests.unknownFields(TypedManifests.parse(manifest)))
                .containsExactlyInAnyOrder(".spec.replicaz", ".spec.template.spec.containers[0].readinesProbe");
    }

    @Test
    void theApiIsReadyForAClusterOfItsOwn() throws Exception {
        List<Map<String, Object>> objects = render(".");
        Deployment api = one(objects, Deployment.class, "api");
        PodSpec pod = api.getSpec().getTemplate().getSpec();
        Container container = pod.getContainers().getFirst();

        assertThat(api.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(api.getSpec().getSelector().getMatchLabels());
        assertThat(container.getImage()).startsWith("flash-coupon/api:");
        assertThat(container.getStartupProbe().getHttpGet().getPath()).isEqualTo("/actuator/health/liveness");
        assertThat(container.getStartupProbe().getPeriodSeconds()
                        * container.getStartupProbe().getFailureThreshold())
                .as("seconds the startup probe allows: start-up (13-31 s) and warm-up (20 s)")
                .isGreaterThanOrEqualTo(90);
        assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/actuator/health/readiness");
        assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/actuator/health/liveness");
        assertThat(container.getLifecycle().getPreStop().getExec().getCommand()).contains("sleep");
        assertThat(pod.getTerminationGracePeriodSeconds())
                .as("longer than preStop and the app's graceful shutdown (20 s a phase)")
                .isGreaterThanOrEqualTo(45);
        assertThat(container.getResources().getRequests()).containsKeys("cpu", "memory");
        assertThat(container.getResources().getLimits()).containsKeys("cpu", "memory");
        assertThat(pod.getTopologySpreadConstraints())
                .anySatisfy(spread -> assertThat(spread.getTopologyKey()).isEqualTo("topology.kubernetes.io/zone"));
        assertThat(api.getSpec()
                        .getStrategy()
                        .getRollingUpdate()
                        .getMaxUnavailable()
                        .getIntVal())
                .isZero();
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getRunAsUser())
                .as("a numeric user, the image's (runAsNonRoot cannot verify a user name)")
                .isEqualTo(imageUser());

        Service service = one(objects, Service.class, "api");
        assertThat(api.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(service.getSpec().getSelector());
        PodDisruptionBudget budget = one(objects, PodDisruptionBudget.class, "api");
        assertThat(budget.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
        assertThat(api.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(budget.getSpec().getSelector().getMatchLabels());
    }

    /**
     * The proof-of-work key must be the same on every replica (a challenge fetched from one pod is sent to another),
     * and the api does not start without it outside the local profile: the Deployment takes it from the Secret by
     * name, so a Secret without it stops the pod with a clear error rather than each pod signing with a key of its own.
     */
    @Test
    void everyApiReplicaGetsTheSharedHumanCheckSecretFromTheSecret() throws Exception {
        for (String overlay : List.of(".", "overlays/small-sale", "overlays/large-sale")) {
            Container api = one(render(overlay), Deployment.class, "api")
                    .getSpec()
                    .getTemplate()
                    .getSpec()
                    .getContainers()
                    .getFirst();

            assertFromTheSecret(api, "COUPON_HUMAN_CHECK_SECRET", overlay);
        }
    }

    /**
     * The api signs each issue request with the record key and the worker writes nothing for a record whose signature
     * does not hold, so both must have the one key, and neither starts without it outside the local profile: both
     * take it from the Secret by name.
     */
    @Test
    void theApiAndTheWorkerGetTheRecordSigningKeyFromTheSecret() throws Exception {
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

            for (Container container : List.of(api, worker)) {
                assertFromTheSecret(container, "COUPON_RECORD_SIGNING_KEY", overlay);
            }
            assertFromTheSecret(api, "COUPON_DRAW_SEED_KEY", overlay);
        }
    }

    /** The container reads {@code variable} from the key of that name in the Secret flash-coupon-secrets, required. */
    private static void assertFromTheSecret(Container container, String variable, String overlay) {
        assertThat(container.getEnv())
                .as("%s, %s: %s from the Secret flash-coupon-secrets", overlay, container.getName(), variable)
                .anySatisfy(env -> {
                    assertThat(env.getName()).isEqualTo(variable);
                    var secret = env.getValueFrom().getSecretKeyRef();
                    assertThat(secret.getName()).isEqualTo("flash-coupon-secrets");
                    assertThat(secret.getKey()).isEqualTo(variable);
                    assertThat(secret.getOptional()).as("required").isNotEqualTo(Boolean.TRUE);
                });
    }

    @Test
    void theWorkerKeepsItsStaticMembershipAcrossRestarts() throws Exception {
        List<Map<String, Object>> objects = render(".");
        StatefulSet worker = one(objects, StatefulSet.class, "issuer-worker");
        Container container =
                worker.getSpec().getTemplate().getSpec().getContainers().getFirst();

        assertThat(container.getEnv()).anySatisfy(env -> {
            assertThat(env.getName()).isEqualTo("COUPON_WORKER_INSTANCE_ID");
            assertThat(env.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.name");
        });
        Service headless = one(objects, Service.class, worker.getSpec().getServiceName());
        assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/actuator/health/readiness");
        assertThat(worker.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds())
                .isGreaterThanOrEqualTo(45);
        assertThat(one(objects, PodDisruptionBudget.class, "issuer-worker")
                        .getSpec()
                        .getMaxUnavailable()
                        .getIntVal())
                .isEqualTo(1);
    }

    @Test
    void topicsAreTheStrimziOperatorsAndTheAppsNeverCreateThem() throws Exception {
        List<Map<String, Object>> objects = render(".");
        ConfigMap config = one(objects, ConfigMap.class, "flash-coupon-config");
        assertThat(config.getData()).containsEntry("COUPON_KAFKA_CREATE_TOPICS", "false");
        assertThat(config.getData()).containsEntry("COUPON_REDIS_MIN_REPLICAS", "1");

        List<KafkaTopic> topics = all(objects, KafkaTopic.class);
        assertThat(topics)
                .extracting(topic -> topic.getSpec().getTopicName())
                .contains(Topics.ISSUE_REQUESTED, Topics.ISSUE_RESULT, Topics.ISSUE_REQUESTED_DEAD_LETTER);
        for (KafkaTopic topic : topics) {
            assertThat(topic.getMetadata().getLabels()).containsKey("strimzi.io/cluster");
            assertThat(topic.getSpec().getReplicas()).isEqualTo(3);
            assertThat(topic.getSpec().getConfig()).containsEntry("min.insync.replicas", "2");
        }
        int partitions = Integer.parseInt(config.getData().get("COUPON_KAFKA_PARTITIONS"));
        assertThat(topics)
                .filteredOn(topic -> topic.getSpec().getTopicName().equals(Topics.ISSUE_REQUESTED))
                .allSatisfy(topic -> assertThat(topic.getSpec().getPartitions()).isEqualTo(partitions));
    }

    @Test
    void aSaleIsPreScaledByACronTriggerAndScaledByCpuAndRefusals() throws Exception {
        for (String overlay : List.of(".", "overlays/small-sale", "overlays/large-sale")) {
            List<Map<String, Object>> objects = render(overlay);
            Map<String, Object> scaled = objects.stream()
                    .filter(object -> TypedManifests.type(object).equals("keda.sh/v1alpha1/ScaledObject"))
                    .findFirst()
                    .orElseThrow();
            Map<String, Object> spec = map(scaled.get("spec"));
            assertThat(spec).containsKeys("scaleTargetRef", "minReplicaCount", "maxReplicaCount", "triggers");
            assertThat(spec.keySet())
                    .isSubsetOf(
                            "scaleTargetRef",
                            "minReplicaCount",
                            "maxReplicaCount",
                            "pollingInterval",
                            "cooldownPeriod",
                            "idleReplicaCount",
                            "fallback",
                            "advanced",
                            "triggers");
            assertThat(map(spec.get("scaleTargetRef"))).containsEntry("name", "api");
            List<Map<String, Object>> triggers = list(spec.get("triggers"));
            assertThat(triggers).extracting(trigger -> trigger.get("type")).contains("cron", "cpu", "prometheus");
            Map<String, Object> cron = triggers.stream()
                    .filter(trigger -> "cron".equals(trigger.get("type")))
                    .findFirst()
                    .map(trigger -> map(trigger.get("metadata")))
                    .orElseThrow();
            assertThat(cron).containsKeys("timezone", "start", "end", "desiredReplicas");
            assertThat(Integer.parseInt((String) cron.get("desiredReplicas")))
                    .isBetween((Integer) spec.get("minReplicaCount"), (Integer) spec.get("maxReplicaCount"));
        }
        assertThat(render("overlays/without-keda"))
                .extracting(TypedManifests::type)
                .contains("autoscaling/v2/HorizontalPodAutoscaler")
                .doesNotContain("keda.sh/v1alpha1/ScaledObject");
    }

    @Test
    void prometheusScrapesBothAppsAndTheRulesAreTheAlertFiles() throws Exception {
        List<Map<String, Object>> objects = render(".");
        for (String app : List.of("api", "issuer-worker")) {
            ServiceMonitor monitor = one(objects, ServiceMonitor.class, app);
            assertThat(monitor.getSpec().getEndpoints())
                    .allSatisfy(endpoint -> assertThat(endpoint.getPath()).isEqualTo("/actuator/prometheus"));
        }
        Map<String, Object> rule = objects.stream()
                .filter(object -> TypedManifests.type(object).equals("monitoring.coreos.com/v1/PrometheusRule"))
                .findFirst()
                .orElseThrow();
        Map<String, Object> file =
                new Yaml().load(Files.readString(ROOT.resolve("deploy/prometheus/alerts.yml"), StandardCharsets.UTF_8));
        assertThat(map(rule.get("spec")).get("groups"))
                .as("the PrometheusRule's groups, the same as deploy/prometheus/alerts.yml")
                .isEqualTo(file.get("groups"));
        PrometheusRule typed = one(objects, PrometheusRule.class, "flash-coupon");
        assertThat(typed.getSpec().getGroups())
                .flatExtracting(group -> group.getRules())
                .allSatisfy(alert -> assertThat(alert.getAnnotations()).containsKey("runbook"));
    }

    /**
     * The two planes: members reach only the api's public port (its Service and the Ingress route nothing else, and only
     * {@code /api}); the order service, the operators and Prometheus each have a Service for their own port; the ports
     * the app is told (COUPON_PRIVATE_PORT, COUPON_ADMIN_PORT, COUPON_MANAGEMENT_PORT) are the container's, and the
     * probes use the management port (the public one answers {@code /actuator} 404).
     */
    @Test
    void theApiServesEachPlaneOnAPortOfItsOwnAndOnlyThePublicOneIsRouted() throws Exception {
        for (String overlay : List.of(".", "overlays/small-sale", "overlays/large-sale", "overlays/without-keda")) {
            List<Map<String, Object>> objects = render(overlay);
            Container api = one(objects, Deployment.class, "api")
                    .getSpec()
                    .getTemplate()
                    .getSpec()
                    .getContainers()
                    .getFirst();
            Map<String, Integer> ports = new java.util.HashMap<>();
            api.getPorts().forEach(port -> ports.put(port.getName(), port.getContainerPort()));
            assertThat(ports).containsOnlyKeys(PLANES.values());
            assertThat(new java.util.HashSet<>(ports.values()))
                    .as("four different ports")
                    .hasSize(4);
            Map<String, String> env = new java.util.HashMap<>();
            api.getEnv().stream()
                    .filter(variable -> variable.getValue() != null)
                    .forEach(variable -> env.put(variable.getName(), variable.getValue()));
            PLANES.forEach((variable, portName) -> {
                if (!variable.equals("COUPON_API_PORT")) {
                    assertThat(env)
                            .as("%s: %s is the container port %s", overlay, variable, portName)
                            .containsEntry(variable, Integer.toString(ports.get(portName)));
                }
            });
            assertThat(ports.get("http")).as("the api's default port").isEqualTo(8080);
            for (var probe : List.of(api.getStartupProbe(), api.getReadinessProbe(), api.getLivenessProbe())) {
                assertThat(probe.getHttpGet().getPort().getStrVal()).isEqualTo("management");
            }

            Map<String, String> serviceTargets = Map.of(
                    "api", "http", "api-internal", "internal", "api-admin", "admin", "api-management", "management");
            serviceTargets.forEach((name, target) -> assertThat(
                            one(objects, Service.class, name).getSpec().getPorts())
                    .as("%s: Service %s reaches port %s only", overlay, name, target)
                    .extracting(port -> port.getTargetPort().getStrVal())
                    .containsExactly(target));
            assertThat(all(objects, Service.class))
                    .filteredOn(service ->
                            "api".equals(service.getSpec().getSelector().get("app.kubernetes.io/name")))
                    .extracting(service -> service.getMetadata().getName())
                    .containsExactlyInAnyOrderElementsOf(serviceTargets.keySet());

            List<Ingress> ingresses = all(objects, Ingress.class);
            assertThat(ingresses).isNotEmpty();
            assertThat(ingresses)
                    .flatExtracting(ingress -> ingress.getSpec().getRules())
                    .flatExtracting(rule -> rule.getHttp().getPaths())
                    .allSatisfy(path -> {
                        assertThat(path.getPath()).isEqualTo("/api");
                        assertThat(path.getPathType()).isEqualTo("Prefix");
                        assertThat(path.getBackend().getService().getName()).isEqualTo("api");
                        assertThat(path.getBackend().getService().getPort().getName())
                                .isEqualTo("http");
                    });
            assertThat(ingresses)
                    .allSatisfy(ingress ->
                            assertThat(ingress.getSpec().getDefaultBackend()).isNull());
        }
    }

    /** Each plane's port, by the variable that sets it in the api and the container port's name. */
    static final Map<String, String> PLANES = Map.of(
            "COUPON_API_PORT", "http",
            "COUPON_PRIVATE_PORT", "internal",
            "COUPON_ADMIN_PORT", "admin",
            "COUPON_MANAGEMENT_PORT", "management");

    /**
     * Who reaches which port: every pod is denied in and out by default, and each allowed source is one namespace on one
     * port: the ingress controller the public port, the order service /internal, the operators /admin, Prometheus the
     * management ports. No rule admits everyone (an empty {@code from}) or every port.
     */
    @Test
    void eachCallerReachesItsOwnPlaneOnly() throws Exception {
        List<Map<String, Object>> objects = render(".");
        List<NetworkPolicy> policies = all(objects, NetworkPolicy.class);
        assertThat(policies).anySatisfy(policy -> {
            assertThat(policy.getSpec().getPodSelector().getMatchLabels()).isNullOrEmpty();
            assertThat(policy.getSpec().getPolicyTypes()).containsExactlyInAnyOrder("Ingress", "Egress");
            assertThat(policy.getSpec().getIngress()).isNullOrEmpty();
            assertThat(policy.getSpec().getEgress()).isNullOrEmpty();
        });

        assertThat(admitted(policies, "api"))
                .isEqualTo(Map.of(
                        8080, Set.of("ingress-nginx"),
                        8081, Set.of("orders"),
                        8083, Set.of("operators"),
                        8082, Set.of("monitoring")));
        assertThat(admitted(policies, "issuer-worker")).isEqualTo(Map.of(8081, Set.of("monitoring")));

        Container api = one(objects, Deployment.class, "api")
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .getFirst();
        Map<String, Integer> ports = new java.util.HashMap<>();
        api.getPorts().forEach(port -> ports.put(port.getName(), port.getContainerPort()));
        assertThat(ports)
                .containsEntry("http", 8080)
                .containsEntry("internal", 8081)
                .containsEntry("admin", 8083)
                .containsEntry("management", 8082);
        assertThat(one(objects, StatefulSet.class, "issuer-worker")
                        .getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .getFirst()
                        .getPorts())
                .extracting(port -> port.getName() + ":" + port.getContainerPort())
                .containsExactly("management:8081");
    }

    /** Port to the namespaces admitted to it, over every policy whose pod selector takes the app's pods. */
    private static Map<Integer, Set<String>> admitted(List<NetworkPolicy> policies, String app) {
        Map<Integer, Set<String>> admitted = new java.util.TreeMap<>();
        for (NetworkPolicy policy : policies) {
            Map<String, String> selector = policy.getSpec().getPodSelector().getMatchLabels();
            if (selector == null || selector.isEmpty() || !app.equals(selector.get("app.kubernetes.io/name"))) {
                continue;
            }
            for (var rule : policy.getSpec().getIngress()) {
                assertThat(rule.getFrom())
                        .as("%s: a rule that admits everyone", name(policy))
                        .isNotEmpty();
                assertThat(rule.getPorts())
                        .as("%s: a rule for every port", name(policy))
                        .isNotEmpty();
                for (var peer : rule.getFrom()) {
                    assertThat(peer.getIpBlock()).isNull();
                    assertThat(peer.getPodSelector()).isNull();
                    String namespace =
                            peer.getNamespaceSelector().getMatchLabels().get("kubernetes.io/metadata.name");
                    assertThat(namespace)
                            .as("%s: one namespace by name", name(policy))
                            .isNotBlank();
                    for (var port : rule.getPorts()) {
                        admitted.computeIfAbsent(port.getPort().getIntVal(), key -> new java.util.TreeSet<>())
                                .add(namespace);
                    }
                }
            }
        }
        return admitted;
    }

    private static String name(NetworkPolicy policy) {
        return policy.getMetadata().getName();
    }

    /**
     * Egress: every app pod reaches DNS, the Redis, MySQL and Kafka that config.yaml names (in their namespaces, on
     * their ports), and HTTPS outside the cluster (the JWK set, the verify URL, the push providers: a NetworkPolicy
     * names no host), and nothing else: every rule has ports, and the HTTPS rule leaves the cluster's private ranges out.
     */
    @Test
    void theAppsReachOnlyTheirBackendsDnsAndHttpsOutside() throws Exception {
        List<Map<String, Object>> objects = render(".");
        ConfigMap config = one(objects, ConfigMap.class, "flash-coupon-config");
        List<NetworkPolicy> egress = all(objects, NetworkPolicy.class).stream()
                .filter(policy -> policy.getSpec().getEgress() != null
                        && !policy.getSpec().getEgress().isEmpty())
                .toList();
        assertThat(egress).isNotEmpty();
        for (NetworkPolicy policy : egress) {
            assertThat(policy.getSpec().getPodSelector().getMatchLabels())
                    .containsEntry("app.kubernetes.io/part-of", "flash-coupon");
        }
        Set<String> allowed = new java.util.TreeSet<>();
        for (NetworkPolicy policy : egress) {
            for (var rule : policy.getSpec().getEgress()) {
                assertThat(rule.getTo())
                        .as("%s: egress to anywhere", name(policy))
                        .isNotEmpty();
                assertThat(rule.getPorts())
                        .as("%s: egress on every port", name(policy))
                        .isNotEmpty();
                for (var peer : rule.getTo()) {
                    for (var port : rule.getPorts()) {
                        String where = peer.getIpBlock() != null
                                ? "ip:" + peer.getIpBlock().getCidr() + "-"
                                        + String.join(",", peer.getIpBlock().getExcept())
                                : "ns:"
                                        + peer.getNamespaceSelector()
                                                .getMatchLabels()
                                                .get("kubernetes.io/metadata.name");
                        allowed.add(where + "/" + port.getProtocol() + ":"
                                + port.getPort().getIntVal());
                    }
                }
            }
        }
        String outside = "ip:0.0.0.0/0-10.0.0.0/8,172.16.0.0/12,192.168.0.0/16/TCP:443";
        Set<String> expected =
                new java.util.TreeSet<>(Set.of("ns:kube-system/UDP:53", "ns:kube-system/TCP:53", outside));
        // the backends config.yaml names: host.namespace.svc:port
        var backend = java.util.regex.Pattern.compile("([a-z0-9-]+)\\.([a-z0-9-]+)\\.svc:(\\d+)");
        for (String variable : List.of("COUPON_DB_URL", "COUPON_REDIS_CLUSTER_NODES", "COUPON_KAFKA_BOOTSTRAP")) {
            var found = backend.matcher(config.getData().get(variable));
            assertThat(found.find())
                    .as("%s names host.namespace.svc:port", variable)
                    .isTrue();
            expected.add("ns:" + found.group(2) + "/TCP:" + found.group(3));
        }
        assertThat(config.getData().get("COUPON_JWT_JWK_SET_URI")).startsWith("https://");
        assertThat(allowed).isEqualTo(expected);
    }

    /**
     * No pod holds a service-account token (the apps never call the Kubernetes API), and every scratch volume is
     * bounded: the api's at least the temporary disk its eligibility uploads may spool (api.yml's default cap).
     */
    @Test
    void podsHoldNoServiceAccountTokenAndEveryScratchVolumeIsBounded() throws Exception {
        for (String overlay : List.of(".", "overlays/small-sale", "overlays/large-sale", "overlays/without-keda")) {
            List<Map<String, Object>> objects = render(overlay);
            List<PodSpec> pods = new ArrayList<>();
            pods.add(one(objects, Deployment.class, "api")
                    .getSpec()
                    .getTemplate()
                    .getSpec());
            pods.add(one(objects, StatefulSet.class, "issuer-worker")
                    .getSpec()
                    .getTemplate()
                    .getSpec());
            for (PodSpec pod : pods) {
                assertThat(pod.getAutomountServiceAccountToken()).isFalse();
                var account =
                        one(objects, io.fabric8.kubernetes.api.model.ServiceAccount.class, pod.getServiceAccountName());
                assertThat(account.getAutomountServiceAccountToken()).isFalse();
                assertThat(pod.getVolumes())
                        .filteredOn(volume -> volume.getEmptyDir() != null)
                        .isNotEmpty()
                        .allSatisfy(volume -> assertThat(volume.getEmptyDir().getSizeLimit())
                                .as("%s: emptyDir %s without sizeLimit", overlay, volume.getName())
                                .isNotNull());
            }
            var tmp = pods.getFirst().getVolumes().stream()
                    .filter(volume -> volume.getName().equals("tmp"))
                    .findFirst()
                    .orElseThrow();
            assertThat(io.fabric8.kubernetes.api.model.Quantity.getAmountInBytes(
                                    tmp.getEmptyDir().getSizeLimit())
                            .longValue())
                    .as("the api's /tmp holds the eligibility uploads' temporary disk")
                    .isGreaterThan(eligibilityTempBytes());
        }
    }

    /** api.yml's default COUPON_ELIGIBILITY_MAX_TEMP_BYTES, in bytes (Spring's MB is 2^20). */
    private static long eligibilityTempBytes() throws IOException {
        var found = java.util.regex.Pattern.compile("COUPON_ELIGIBILITY_MAX_TEMP_BYTES:(\\d+)MB")
                .matcher(Files.readString(ROOT.resolve("api/src/main/resources/api.yml")));
        assertThat(found.find()).isTrue();
        return Long.parseLong(found.group(1)) << 20;
    }

    /**
     * Metrics need the metrics role in both apps (COUPON_METRICS_REQUIRE_ROLE), and each ServiceMonitor scrapes the
     * management port with credentials from a Secret (OAuth2 client credentials: a token with that role); the api's
     * selects the management Service only.
     */
    @Test
    void metricsNeedTheRoleAndPrometheusCarriesCredentials() throws Exception {
        List<Map<String, Object>> objects = render(".");
        assertThat(one(objects, ConfigMap.class, "flash-coupon-config")
                        .getData()
                        .get("COUPON_METRICS_REQUIRE_ROLE"))
                .isNotBlank();
        for (String app : List.of("api", "issuer-worker")) {
            ServiceMonitor monitor = one(objects, ServiceMonitor.class, app);
            assertThat(monitor.getSpec().getEndpoints()).isNotEmpty().allSatisfy(endpoint -> {
                assertThat(endpoint.getPort()).isEqualTo("management");
                var oauth2 = endpoint.getOauth2();
                assertThat(oauth2)
                        .as("%s: credentials for the metrics role", app)
                        .isNotNull();
                assertThat(oauth2.getClientId().getSecret().getName()).isNotBlank();
                assertThat(oauth2.getClientSecret().getName()).isNotBlank();
                assertThat(oauth2.getTokenUrl()).startsWith("https://");
            });
            Map<String, String> selector = monitor.getSpec().getSelector().getMatchLabels();
            List<Service> selected = all(objects, Service.class).stream()
                    .filter(service ->
                            service.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
                    .toList();
            assertThat(selected)
                    .as("%s: the Services its ServiceMonitor selects", app)
                    .isNotEmpty()
                    .allSatisfy(service -> assertThat(service.getSpec().getPorts())
                            .extracting(port -> port.getName())
                            .containsExactly("management"));
        }
    }

    /** Every topic the apps name ({@link Topics}) is a KafkaTopic here, and no other: the apps never create them. */
    @Test
    void everyTopicTheAppsUseIsDeclared() throws Exception {
        Set<String> named = new java.util.TreeSet<>();
        for (var field : Topics.class.getFields()) {
            if (java.lang.reflect.Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                named.add((String) field.get(null));
            }
        }
        assertThat(named).contains(Topics.ISSUE_REQUESTED, Topics.WALLET_CHANGED);
        assertThat(all(render("kafka-topics"), KafkaTopic.class))
                .extracting(topic -> topic.getSpec().getTopicName())
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(named);
    }

    /**
     * bin/plan's arithmetic is docs/scaling.md's (100,000 req/s x 69 us, the newest report's figure: 5 pods; x 185 us
     * given on the command line: 11; one coupon at 1,000,000 req/s: 27 stock shards) and its trigger is openAt's.
     */
    @Test
    void thePlannerSizesASaleAndWritesItsCronTrigger() throws Exception {
        OffsetDateTime openAt =
                OffsetDateTime.now(ZoneOffset.UTC).plusDays(3).withHour(12).truncatedTo(ChronoUnit.HOURS);
        Result plan = run(
                List.of(
                        "bash",
                        "bin/plan",
                        "--requests-per-second",
                        "100000",
                        "--coupons",
                        "3",
                        "--issue-rate",
                        "2000",
                        "--open-at",
                        openAt.toInstant().toString()),
                ROOT);

        assertThat(plan.exit()).as(plan.output()).isZero();
        assertThat(plan.output())
                .containsPattern("api replicas +5 ")
                .containsPattern("worker replicas +3 ")
                .contains("69 us: api CPU per admission at saturation, " + PLAN_REPORT)
                .contains("start: \"45 11 " + cronDay(openAt.minusMinutes(15)) + " *\"")
                .contains("end: \"30 12 " + cronDay(openAt.plusMinutes(30)) + " *\"")
                .contains("desiredReplicas: \"5\"");
        assertThat(ROOT.resolve(PLAN_REPORT).resolve("report.md"))
                .as("the report bin/plan names for its default")
                .content(StandardCharsets.UTF_8)
                .contains("| api | 12,403/s | 1.00 | 69 µs |");
        Result cautious = run(
                List.of(
                        "bash",
                        "bin/plan",
                        "--requests-per-second",
                        "100000",
                        "--coupons",
                        "3",
                        "--issue-rate",
                        "2000",
                        "--cpu-per-admission-us",
                        "185"),
                ROOT);
        assertThat(cautious.exit()).as(cautious.output()).isZero();
        assertThat(cautious.output()).containsPattern("api replicas +11 ").contains("185 us: given with");
        assertThat(plan.output()).containsPattern("stock shards +1 ");
        // one coupon at 1,000,000 req/s: 1,000,000 x 1.5 (a sharded admission's Redis work over one shard's) over
        // 45,000 scripts/s (half a core)
        Result hot = run(
                List.of(
                        "bash",
                        "bin/plan",
                        "--requests-per-second",
                        "1000000",
                        "--coupons",
                        "1",
                        "--issue-rate",
                        "2000"),
                ROOT);
        assertThat(hot.exit()).as(hot.output()).isZero();
        assertThat(hot.output())
                .containsPattern("stock shards +34 ")
                .containsPattern("Redis primaries +34 ")
                .contains("given at creation");
        Result missing = run(List.of("bash", "bin/plan", "--coupons", "1"), ROOT);
        assertThat(missing.exit()).isNotZero();
    }

    /** Day of month and month as a cron line writes them. */
    private static String cronDay(OffsetDateTime at) {
        return at.getDayOfMonth() + " " + at.getMonthValue();
    }

    @Test
    void promtoolAcceptsTheAlertRules() throws Exception {
        assumeTrue(onPath("promtool"), "promtool is not installed (Debian's prometheus package; bin/test installs it)");
        Result result = run(List.of("promtool", "check", "rules", "deploy/prometheus/alerts.yml"), ROOT);
        assertThat(result.exit())
                .as("promtool check rules: %s", result.output())
                .isZero();
    }

    /** The alerts' own unit tests (deploy/prometheus/alerts-test.yml): the wallet-outbox alert fires, and only then. */
    @Test
    void promtoolUnitTestsOfTheAlertsPass() throws Exception {
        assumeTrue(onPath("promtool"), "promtool is not installed (Debian's prometheus package; bin/test installs it)");
        Result result = run(List.of("promtool", "test", "rules", "deploy/prometheus/alerts-test.yml"), ROOT);
        assertThat(result.exit()).as("promtool test rules: %s", result.output()).isZero();
    }

    // ---------------------------------------------------------------------------------------------------------------

    /** The numeric user deploy/Dockerfile's last USER names. */
    static long imageUser() throws IOException {
        String user = Files.readAllLines(ROOT.resolve("deploy/Dockerfile")).stream()
                .filter(line -> line.startsWith("USER "))
                .reduce((first, second) -> second)
                .orElseThrow()
                .substring("USER ".length())
                .trim();
        return Long.parseLong(user.split(":")[0]);
    }

    record Result(int exit, String output) {}

    static List<Map<String, Object>> render(String kustomization) throws Exception {
        assumeTrue(onPath("kubectl"), "kubectl is not installed: the manifests cannot be rendered here");
        Result result = run(
                List.of(
                        "kubectl",
                        "kustomize",
                        KUBERNETES.resolve(kustomization).toString()),
                ROOT);
        assertThat(result.exit())
                .as("kubectl kustomize %s: %s", kustomization, result.output())
                .isZero();
        List<Map<String, Object>> objects = new ArrayList<>();
        for (Object document : new Yaml().loadAll(result.output())) {
            if (document != null) {
                objects.add(map(document));
            }
        }
        return objects;
    }

    static <T> List<T> all(List<Map<String, Object>> objects, Class<T> model) {
        return objects.stream()
                .filter(object -> model.equals(TypedManifests.MODELS.get(TypedManifests.type(object))))
                .map(object -> model.cast(TypedManifests.parse(object)))
                .toList();
    }

    static <T> T one(List<Map<String, Object>> objects, Class<T> model, String name) {
        return objects.stream()
                .filter(object -> model.equals(TypedManifests.MODELS.get(TypedManifests.type(object))))
                .filter(object -> name.equals(name(object)))
                .map(object -> model.cast(TypedManifests.parse(object)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + model.getSimpleName() + " named " + name));
    }

    static String name(Map<String, Object> object) {
        return (String) map(object.get("metadata")).get("name");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> list(Object value) {
        return (List<Map<String, Object>>) value;
    }

    static boolean onPath(String program) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, program)));
    }

    static Result run(List<String> command, Path dir) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not finish within 60 s");
        }
        return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }

    private static Path root() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("deploy/kubernetes")) && Files.isRegularFile(dir.resolve("mvnw"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "no deploy/kubernetes above " + Path.of("").toAbsolutePath());
    }
}
