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

            assertThat(api.getEnv())
                    .as("%s: COUPON_HUMAN_CHECK_SECRET from the Secret flash-coupon-secrets", overlay)
                    .anySatisfy(variable -> {
                        assertThat(variable.getName()).isEqualTo("COUPON_HUMAN_CHECK_SECRET");
                        var secret = variable.getValueFrom().getSecretKeyRef();
                        assertThat(secret.getName()).isEqualTo("flash-coupon-secrets");
                        assertThat(secret.getKey()).isEqualTo("COUPON_HUMAN_CHECK_SECRET");
                        assertThat(secret.getOptional()).as("required").isNotEqualTo(Boolean.TRUE);
                    });
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
                assertThat(container.getEnv())
                        .as(
                                "%s, %s: COUPON_RECORD_SIGNING_KEY from the Secret flash-coupon-secrets",
                                overlay, container.getName())
                        .anySatisfy(variable -> {
                            assertThat(variable.getName()).isEqualTo("COUPON_RECORD_SIGNING_KEY");
                            var secret = variable.getValueFrom().getSecretKeyRef();
                            assertThat(secret.getName()).isEqualTo("flash-coupon-secrets");
                            assertThat(secret.getKey()).isEqualTo("COUPON_RECORD_SIGNING_KEY");
                            assertThat(secret.getOptional()).as("required").isNotEqualTo(Boolean.TRUE);
                        });
            }
        }
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
     * bin/plan's arithmetic is docs/scaling.md's (100,000 req/s x 69 us, the newest report's figure: 5 pods; x 185 us
     * given on the command line: 11) and its trigger is openAt's.
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
