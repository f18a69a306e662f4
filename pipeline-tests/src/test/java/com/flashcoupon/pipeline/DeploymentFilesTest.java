package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.contract.KafkaAccess;
import com.flashcoupon.contract.Topics;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySourcesPropertyResolver;
import org.springframework.core.io.FileSystemResource;
import org.yaml.snakeyaml.Yaml;

/**
 * Docker cannot run where the tests run, so {@code docker-compose.yml} and {@code deploy/Dockerfile} are checked by
 * reading them: the api never restart-loops on the public local secret, {@code docker compose stop} leaves each app
 * its graceful shutdown, every app waits for healthy backing services and reports its own health, the image is built
 * from the Spring Boot jar's layers, and the defaults are safe to deploy: only the api is published beyond the host,
 * Grafana's password comes from the environment and Grafana cannot reach MySQL; bin/up's apps listen on 127.0.0.1.
 */
class DeploymentFilesTest {

    /** Spring Boot's default of {@code spring.lifecycle.timeout-per-shutdown-phase}. */
    private static final Duration SPRING_DEFAULT_SHUTDOWN_PHASE = Duration.ofSeconds(30);

    private static final String LOCAL_SECRET = "flash-coupon-local-secret-do-not-use-in-production";

    /** Compose's "required" interpolation with a message: {@code ${NAME:?message}} (or {@code ?} without colon). */
    private static final Pattern REQUIRED_SECRET = Pattern.compile("\\$\\{COUPON_JWT_SECRET:?\\?[^}]*\\S[^}]*}");

    private static final Path ROOT = repositoryRoot();

    @Test
    void theApiGetsARequiredSecretOrIsToldItRunsTheLocalProfile() throws IOException {
        Map<String, Object> api = service("api");
        Map<String, String> environment = environment(api);
        String secret = environment.getOrDefault("COUPON_JWT_SECRET", "");
        boolean localProfile = List.of(
                        environment.getOrDefault("SPRING_PROFILES_ACTIVE", "").split(","))
                .stream()
                .map(String::trim)
                .anyMatch("local"::equals);

        // The api refuses the public local secret outside the local profile: given that secret without the profile,
        // it exits at start-up and compose restarts it for ever.
        assertThat(REQUIRED_SECRET.matcher(secret).matches() || localProfile)
                .as(
                        "the api's COUPON_JWT_SECRET (%s) must be required with a message (${COUPON_JWT_SECRET:?...}),"
                                + " or SPRING_PROFILES_ACTIVE must include local",
                        secret)
                .isTrue();
        if (!localProfile) {
            assertThat(secret)
                    .as("the public local secret outside the local profile")
                    .doesNotContain(LOCAL_SECRET);
        }
    }

    /**
     * The proof-of-work key must be the same on every api instance, so outside the local profile the api does not start
     * without one: compose asks for it as it asks for the JWT secret, rather than an api that restarts for ever.
     */
    @Test
    void theApiGetsARequiredHumanCheckSecret() throws IOException {
        Map<String, String> environment = environment(service("api"));

        assertThat(environment.getOrDefault("COUPON_HUMAN_CHECK_SECRET", ""))
                .as("the api's COUPON_HUMAN_CHECK_SECRET must be required with a message"
                        + " (${COUPON_HUMAN_CHECK_SECRET:?...})")
                .matches(Pattern.compile("\\$\\{COUPON_HUMAN_CHECK_SECRET:?\\?[^}]*\\S[^}]*}"));
    }

    /**
     * The api signs each issue request with the record key and the worker checks it, so both need the same one, and
     * outside the local profile neither starts without it: compose asks for it once and gives it to both.
     */
    @Test
    void theApiAndTheWorkerGetTheSameRequiredRecordSigningKey() throws IOException {
        Pattern required = Pattern.compile("\\$\\{COUPON_RECORD_SIGNING_KEY:?\\?[^}]*\\S[^}]*}");
        String api = environment(service("api")).getOrDefault("COUPON_RECORD_SIGNING_KEY", "");
        String worker = environment(service("worker")).getOrDefault("COUPON_RECORD_SIGNING_KEY", "");

        assertThat(api)
                .as("the api's COUPON_RECORD_SIGNING_KEY must be required with a message"
                        + " (${COUPON_RECORD_SIGNING_KEY:?...})")
                .matches(required);
        assertThat(worker)
                .as("the worker's COUPON_RECORD_SIGNING_KEY, the api's")
                .isEqualTo(api);
    }

    /**
     * Compose's Kafka checks who writes (security N5), as bin/up --cluster's and the manifests' do: its broker runs with
     * the same SASL settings as bin/lib/kafka.sh's brokers (deploy/compose/kafka-start.sh, which replaces the image's
     * start script), each app is its own SCRAM user whose password compose requires, the one-shot kafka-access grants
     * each exactly the contract's {@link KafkaAccess} and makes the topics of {@link Topics} the apps may not create; the
     * apps start once it has run. It stays on the private backend network, with no port on the host.
     */
    @Test
    void composeKafkaAuthenticatesEachAppAsItsOwnUserWithTheContractsAcls() throws IOException {
        Map<String, Object> kafka = service("kafka");
        assertThat(kafka.get("ports"))
                .as("kafka publishes no port in docker-compose.yml")
                .isNull();
        assertThat(kafka.get("networks")).as("kafka's networks").isEqualTo(List.of("backend"));
        assertThat(kafka.get("entrypoint")).isEqualTo(List.of("sh", "/flash-coupon/kafka-start.sh"));
        assertThat(String.valueOf(kafka.get("volumes")))
                .contains("./deploy/compose/kafka-start.sh:/flash-coupon/kafka-start.sh:ro");
        assertThat(healthcheckTest(kafka)).contains("--command-config /tmp/flash-coupon/admin.properties");

        String start = Files.readString(ROOT.resolve("deploy/compose/kafka-start.sh"));
        String cluster = Files.readString(ROOT.resolve("bin/lib/kafka.sh"));
        List<String> security = securityLines(
                hereDocument(cluster, "SECURE").replace("$FC_KAFKA_ADMIN_PASSWORD", "$COUPON_KAFKA_ADMIN_PASSWORD"));
        assertThat(security).as("bin/lib/kafka.sh's SASL settings").hasSizeGreaterThanOrEqualTo(10);
        assertThat(securityLines(hereDocument(start, "PROPERTIES")))
                .as("kafka-start.sh's SASL settings, bin/lib/kafka.sh's")
                .isEqualTo(security);
        assertThat(start)
                .contains("--add-scram \"SCRAM-SHA-512=[name=coupon-admin,password=$COUPON_KAFKA_ADMIN_PASSWORD]\"")
                .contains("advertised.listeners=SASL_PLAINTEXT://kafka:9092");

        Map<String, Object> access = service("kafka-access");
        assertThat(access.get("entrypoint")).isEqualTo(List.of("sh", "/flash-coupon/kafka-access.sh"));
        assertThat(access.get("restart")).isEqualTo("no");
        String script = Files.readString(ROOT.resolve("deploy/compose/kafka-access.sh"));
        List<AclBinding> granted = script.lines()
                .filter(line -> line.startsWith("acl "))
                .map(DeploymentFilesTest::aclBinding)
                .toList();
        List<AclBinding> contract = new ArrayList<>(KafkaAccess.api(KafkaAccess.API_USER));
        contract.addAll(KafkaAccess.worker(KafkaAccess.WORKER_USER));
        assertThat(granted)
                .as("kafka-access.sh's ACLs, the contract's KafkaAccess")
                .isEqualTo(contract);
        assertThat(script.lines().filter(line -> line.startsWith("topic ")).map(line -> line.substring(6)))
                .as("the topics kafka-access.sh makes")
                .containsExactlyInAnyOrder(
                        Topics.ISSUE_REQUESTED,
                        Topics.ISSUE_RESULT,
                        Topics.ISSUE_REQUESTED_DEAD_LETTER,
                        Topics.WALLET_CHANGED,
                        Topics.ISSUE_RESULT_NOTIFY_RETRY,
                        Topics.ISSUE_RESULT_NOTIFY_DEAD_LETTER);

        Map<String, String> grants = environment(access);
        Map<String, String> api = environment(service("api"));
        Map<String, String> worker = environment(service("worker"));
        assertThat(grants.get("COUPON_KAFKA_ADMIN_PASSWORD"))
                .isEqualTo(environment(kafka).get("COUPON_KAFKA_ADMIN_PASSWORD"));
        for (var app : List.of(Map.entry(api, KafkaAccess.API_USER), Map.entry(worker, KafkaAccess.WORKER_USER))) {
            Map<String, String> environment = app.getKey();
            assertThat(environment)
                    .containsEntry("COUPON_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT")
                    .containsEntry("COUPON_KAFKA_CREATE_TOPICS", "false")
                    .containsEntry("COUPON_KAFKA_USER", app.getValue());
            assertThat(environment.get("COUPON_KAFKA_PASSWORD"))
                    .as("%s's Kafka password, required and the one kafka-access gives it", app.getValue())
                    .matches("\\$\\{COUPON_KAFKA_[A-Z]+_PASSWORD:\\?[^}]*\\S[^}]*}")
                    .isEqualTo(grants.get(
                            app.getValue().equals(KafkaAccess.API_USER)
                                    ? "COUPON_KAFKA_API_PASSWORD"
                                    : "COUPON_KAFKA_WORKER_PASSWORD"));
        }
        assertThat(String.valueOf(service("api").get("depends_on")))
                .as("the apps start once their users and topics exist")
                .contains("kafka-access={condition=service_completed_successfully}");
    }

    /** The first here-document of a shell script ending with {@code marker}. */
    private static String hereDocument(String script, String marker) {
        int start = script.indexOf("<<" + marker + "\n");
        assertThat(start).as("a here-document <<%s", marker).isNotNegative();
        int end = script.indexOf("\n" + marker + "\n", start);
        return script.substring(start, end);
    }

    /** The SASL and authorizer settings of a broker's server.properties, as a script writes them. */
    private static List<String> securityLines(String script) {
        return script.lines()
                .map(String::strip)
                .filter(line -> line.startsWith("sasl.")
                        || line.startsWith("listener.name.")
                        || line.startsWith("authorizer.")
                        || line.startsWith("super.users=")
                        || line.startsWith("allow.everyone.")
                        || line.startsWith("inter.broker.listener.name=")
                        || line.startsWith("controller.listener.names=")
                        || line.startsWith("listener.security.protocol.map="))
                .toList();
    }

    /** {@code acl USER OPERATION topic|group NAME}, as kafka-access.sh grants it. */
    private static AclBinding aclBinding(String line) {
        String[] words = line.split(" ");
        ResourceType type = words[3].equals("topic") ? ResourceType.TOPIC : ResourceType.GROUP;
        return new AclBinding(
                new ResourcePattern(type, words[4], PatternType.LITERAL),
                new AccessControlEntry(
                        "User:" + words[1],
                        "*",
                        AclOperation.fromString(words[2].toUpperCase(java.util.Locale.ROOT)),
                        AclPermissionType.ALLOW));
    }

    /**
     * Three MySQL users, none shared (security N5): the migrations' one made at the server's first start, the apps'
     * with their grants by the one-shot mysql-grants (the same files MySqlUsersTest checks); the api migrates, the
     * worker never does and waits for the api; each password is required, none from this repository.
     */
    @Test
    void eachAppWorksAsItsOwnMySqlUserAndOnlyTheApiMigrates() throws IOException {
        Map<String, String> api = environment(service("api"));
        Map<String, String> worker = environment(service("worker"));
        Map<String, String> grants = environment(service("mysql-grants"));
        Map<String, String> mysql = environment(service("mysql"));

        assertThat(api).containsEntry("COUPON_DB_USER", "coupon_api");
        assertThat(worker).containsEntry("COUPON_DB_USER", "coupon_worker").containsEntry("COUPON_DB_MIGRATE", "false");
        assertThat(worker).as("the worker migrates nothing").doesNotContainKey("COUPON_DB_MIGRATION_USER");
        assertThat(api.get("COUPON_DB_MIGRATION_USER"))
                .as("the api's Flyway user, made at MySQL's first start")
                .isEqualTo(mysql.get("COUPON_DB_MIGRATION_USER"))
                .isNotIn(api.get("COUPON_DB_USER"), worker.get("COUPON_DB_USER"));
        assertThat(api.get("COUPON_DB_MIGRATION_PASSWORD")).isEqualTo(mysql.get("COUPON_DB_MIGRATION_PASSWORD"));
        assertThat(grants)
                .containsEntry("COUPON_DB_API_USER", api.get("COUPON_DB_USER"))
                .containsEntry("COUPON_DB_API_PASSWORD", api.get("COUPON_DB_PASSWORD"))
                .containsEntry("COUPON_DB_WORKER_USER", worker.get("COUPON_DB_USER"))
                .containsEntry("COUPON_DB_WORKER_PASSWORD", worker.get("COUPON_DB_PASSWORD"));
        for (String password : List.of(
                api.get("COUPON_DB_PASSWORD"),
                worker.get("COUPON_DB_PASSWORD"),
                api.get("COUPON_DB_MIGRATION_PASSWORD"))) {
            assertThat(password)
                    .as("a required MySQL password")
                    .matches("\\$\\{COUPON_DB_[A-Z]+_PASSWORD:\\?[^}]*\\S[^}]*}");
        }
        assertThat(String.valueOf(service("mysql-grants").get("command")))
                .contains("/flash-coupon/bin/lib/mysql-users.sh apps coupon");
        assertThat(String.valueOf(service("mysql").get("volumes")))
                .contains("./deploy/compose/mysql-init.sh:/docker-entrypoint-initdb.d/")
                .contains("./bin/lib/mysql-users.sh:/flash-coupon/bin/lib/mysql-users.sh:ro")
                .contains("./deploy/mysql-migration-user.sql:/flash-coupon/deploy/mysql-migration-user.sql:ro");
        assertThat(Files.readString(ROOT.resolve("deploy/compose/mysql-init.sh")))
                .contains("mysql-users.sh migration coupon");
        assertThat(Files.isExecutable(ROOT.resolve("deploy/compose/mysql-init.sh")))
                .as("the mysql image runs an executable init script; one it is not, it sources into its own shell")
                .isTrue();
        assertThat(service("worker").get("depends_on"))
                .as("the worker starts once the api has migrated")
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .containsEntry("api", Map.of("condition", "service_healthy"));
    }

    /** The api keeps fair starts' seeds encrypted with the draw key and does not start without it: compose asks for it. */
    @Test
    void theApiGetsARequiredDrawSeedKey() throws IOException {
        assertThat(environment(service("api")).getOrDefault("COUPON_DRAW_SEED_KEY", ""))
                .as("the api's COUPON_DRAW_SEED_KEY must be required with a message (${COUPON_DRAW_SEED_KEY:?...})")
                .matches(Pattern.compile("\\$\\{COUPON_DRAW_SEED_KEY:?\\?[^}]*\\S[^}]*}"));
    }

    /**
     * Grafana's admin (who can add MySQL as a data source and run SQL, or read every metric), Prometheus (no
     * authentication) and the worker's actuator are for this machine's operators: published on 127.0.0.1 only. The
     * api alone is the service.
     */
    @Test
    void onlyTheApiIsPublishedBeyondThisMachine() throws IOException {
        services().forEach((name, value) -> {
            @SuppressWarnings("unchecked")
            Map<String, Object> service = (Map<String, Object>) value;
            for (String port : ports(service)) {
                if (!name.equals("api")) {
                    assertThat(port)
                            .as("published port %s of %s: 127.0.0.1 only", port, name)
                            .startsWith("127.0.0.1:");
                }
            }
        });
        assertThat(ports(service("grafana"))).as("Grafana's port").isNotEmpty();
        assertThat(ports(service("prometheus"))).as("Prometheus' port").isNotEmpty();
        assertThat(ports(service("worker"))).as("the worker's actuator").isNotEmpty();
    }

    /** No password from this repository: compose stops with a message when none is given, as for the JWT secret. */
    @Test
    void grafanaGetsARequiredAdminPasswordFromTheEnvironment() throws IOException {
        String password = environment(service("grafana")).getOrDefault("GF_SECURITY_ADMIN_PASSWORD", "");

        assertThat(password)
                .as("GF_SECURITY_ADMIN_PASSWORD must be ${GRAFANA_ADMIN_PASSWORD:?message}")
                .matches(Pattern.compile("\\$\\{GRAFANA_ADMIN_PASSWORD:?\\?[^}]*\\S[^}]*}"));
    }

    /** Grafana shares no network with MySQL, Redis or Kafka: an admin session cannot become SQL on the coupon database. */
    @Test
    void theObservabilityToolsCannotReachTheBackingServices() throws IOException {
        for (String tool : List.of("grafana", "prometheus")) {
            Set<String> reach = networks(service(tool));
            for (String backing : List.of("mysql", "redis", "kafka")) {
                assertThat(reach)
                        .as("networks %s shares with %s", tool, backing)
                        .doesNotContainAnyElementsOf(networks(service(backing)));
            }
        }
        for (String target : List.of("api", "worker")) {
            assertThat(networks(service("prometheus")))
                    .as("Prometheus scrapes %s", target)
                    .containsAnyElementsOf(networks(service(target)));
        }
    }

    /**
     * bin/up's apps (the local profile) accept tokens signed with the public local secret, with which anyone can mint an
     * operator's token: they listen on 127.0.0.1 unless {@code COUPON_BIND_ADDRESS} says otherwise, in bin/up and in
     * the local profile of both apps.
     */
    @Test
    void localRunsListenOnThisMachineOnly() throws Exception {
        Process env = new ProcessBuilder(
                        "bash",
                        "-c",
                        "unset COUPON_BIND_ADDRESS; source bin/lib/env.sh; printf %s \"$COUPON_BIND_ADDRESS\"")
                .directory(ROOT.toFile())
                .redirectErrorStream(true)
                .start();
        String bound = new String(env.getInputStream().readAllBytes()).strip();
        assertThat(env.waitFor()).isZero();
        assertThat(bound).as("bin/lib/env.sh's COUPON_BIND_ADDRESS").isEqualTo("127.0.0.1");
        assertThat(Files.readString(ROOT.resolve("bin/lib/apps.sh")))
                .as("bin/up gives the apps the address")
                .contains("-Dserver.address=\"${COUPON_BIND_ADDRESS:-127.0.0.1}\"");
        for (Path profile : List.of(
                ROOT.resolve("api/src/main/resources/api-local.yml"),
                ROOT.resolve("issuer-worker/src/main/resources/application-local.yml"))) {
            var sources = new MutablePropertySources();
            new YamlPropertySourceLoader()
                    .load("local", new FileSystemResource(profile))
                    .forEach(sources::addLast);
            var resolver = new PropertySourcesPropertyResolver(sources);
            assertThat(resolver.getProperty("server.address"))
                    .as("server.address of %s", profile.getFileName())
                    .isEqualTo("127.0.0.1");
        }
    }

    @Test
    void everyAppHasMoreTimeToStopThanItsGracefulShutdownTakes() throws IOException {
        Map<String, Map<String, Object>> apps = appServices();
        assertThat(apps).as("services built from this repository").containsKeys("api", "worker");
        apps.forEach((name, service) -> {
            String module = module(service);
            Duration shutdown = shutdownPhaseTimeout(module);
            Object grace = service.get("stop_grace_period");
            assertThat(grace)
                    .as("stop_grace_period of %s (docker's default of 10 s kills it mid-shutdown)", name)
                    .isNotNull();
            assertThat(DurationStyle.detectAndParse(grace.toString()))
                    .as(
                            "stop_grace_period of %s against the %s module's timeout-per-shutdown-phase (%s)",
                            name, module, shutdown)
                    .isGreaterThan(shutdown);
        });
    }

    @Test
    void everyAppReportsItsHealthAndWaitsForHealthyBackingServices() throws IOException {
        Map<String, Object> services = services();
        appServices().forEach((name, service) -> {
            assertThat(healthcheckTest(service)).as("healthcheck of %s", name).isNotEmpty();
            assertThat(service.get("depends_on")).as("depends_on of %s", name).isInstanceOf(Map.class);
            Map<?, ?> dependsOn = (Map<?, ?>) service.get("depends_on");
            // Kafka through kafka-access, which runs once the broker is healthy and makes the apps' users
            assertThat(dependsOn.keySet().stream().map(Object::toString).toList())
                    .as("what %s waits for", name)
                    .contains("redis", "mysql", "kafka-access");
            dependsOn.forEach((dependency, how) -> {
                @SuppressWarnings("unchecked")
                Map<String, Object> other = (Map<String, Object>) services.get(dependency);
                assertThat(other).as("service %s", dependency).isNotNull();
                if (dependency.equals("kafka-access")) {
                    assertThat(how).isEqualTo(Map.of("condition", "service_completed_successfully"));
                    assertThat(other.get("depends_on"))
                            .as("kafka-access waits for a healthy broker")
                            .isEqualTo(Map.of("kafka", Map.of("condition", "service_healthy")));
                    return;
                }
                assertThat(how)
                        .as("%s waits for %s", name, dependency)
                        .isEqualTo(Map.of("condition", "service_healthy"));
                assertThat(healthcheckTest(other))
                        .as("healthcheck of %s, which %s waits for", dependency, name)
                        .isNotEmpty();
            });
        });
    }

    @Test
    void theImageIsBuiltFromTheJarsLayers() throws IOException {
        List<String> instructions = dockerInstructions(ROOT.resolve("deploy/Dockerfile"));

        assertThat(instructions)
                .as("the jar extracted into its layers with Spring Boot's tools jar mode")
                .anyMatch(line -> line.startsWith("RUN ")
                        && line.contains("-Djarmode=tools")
                        && line.contains(" extract ")
                        && line.contains("--layers")
                        && line.contains("--launcher"));

        // One COPY per layer, in Spring Boot's order (least often changed first), each from the extracted tree.
        List<String> layers = List.of("dependencies", "spring-boot-loader", "snapshot-dependencies", "application");
        List<String> copied = new ArrayList<>();
        for (String line : instructions) {
            if (line.startsWith("COPY ") && line.contains("--from=")) {
                for (String layer : layers) {
                    if (Pattern.compile("/" + Pattern.quote(layer) + "/?\\s")
                            .matcher(line)
                            .find()) {
                        copied.add(layer);
                    }
                }
            }
        }
        assertThat(copied)
                .as("the layers copied into the final image, in order")
                .isEqualTo(layers);

        String entrypoint = instructions.stream()
                .filter(line -> line.startsWith("ENTRYPOINT "))
                .reduce((first, second) -> second)
                .orElse("");
        assertThat(entrypoint)
                .as("the last ENTRYPOINT starts the extracted launcher, not a fat jar")
                .contains("org.springframework.boot.loader.launch.JarLauncher")
                .doesNotContain("-jar");
    }

    /**
     * Issue 27: the image ran the JVM's defaults (G1, a small young generation) while bin/up runs the api with the
     * measured settings (ParallelGC, a sized young generation: +12%). The image carries them, sized from the
     * container's memory rather than fixed, so one image fits any memory limit.
     */
    @Test
    void theImageRunsTheMeasuredJvmSettingsSizedFromTheContainersMemory() throws IOException {
        List<String> instructions = dockerInstructions(ROOT.resolve("deploy/Dockerfile"));
        String options = instructions.stream()
                .filter(line -> line.startsWith("ENV ") && line.contains("JAVA_TOOL_OPTIONS"))
                .reduce((first, second) -> second)
                .orElse("");

        assertThat(options)
                .as("the image's JAVA_TOOL_OPTIONS")
                .contains("-XX:+UseParallelGC")
                .contains("-XX:MaxRAMPercentage=")
                .contains("-XX:InitialRAMPercentage=")
                .contains("-XX:NewRatio=")
                .contains("-XX:+ExitOnOutOfMemoryError")
                .doesNotContainPattern("-Xm[xsn]\\d");
    }

    // ---------------------------------------------------------------------------------------------------------------

    static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("docker-compose.yml")) && Files.isRegularFile(dir.resolve("mvnw"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "no docker-compose.yml above " + Path.of("").toAbsolutePath());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> services() throws IOException {
        try (Reader reader = Files.newBufferedReader(ROOT.resolve("docker-compose.yml"))) {
            Map<String, Object> compose = new Yaml().load(reader);
            return (Map<String, Object>) compose.get("services");
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> service(String name) throws IOException {
        Map<String, Object> service = (Map<String, Object>) services().get(name);
        assertThat(service).as("service %s in docker-compose.yml", name).isNotNull();
        return service;
    }

    /** The services compose builds from this repository (with deploy/Dockerfile and a MODULE build argument). */
    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> appServices() throws IOException {
        Map<String, Map<String, Object>> apps = new LinkedHashMap<>();
        services().forEach((name, value) -> {
            Map<String, Object> service = (Map<String, Object>) value;
            if (service.get("build") != null) {
                apps.put(name, service);
            }
        });
        return apps;
    }

    @SuppressWarnings("unchecked")
    private static String module(Map<String, Object> service) {
        Map<String, Object> build = (Map<String, Object>) service.get("build");
        Map<String, Object> args = (Map<String, Object>) build.get("args");
        assertThat(args).as("build args of %s", service).containsKey("MODULE");
        return args.get("MODULE").toString();
    }

    /** environment as a map, whether compose has it as a map or as a list of NAME=value. */
    private static Map<String, String> environment(Map<String, Object> service) {
        Map<String, String> environment = new LinkedHashMap<>();
        Object value = service.get("environment");
        if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> environment.put(k.toString(), v == null ? "" : v.toString()));
        } else if (value instanceof List<?> list) {
            for (Object item : list) {
                String entry = item.toString();
                int eq = entry.indexOf('=');
                environment.put(eq < 0 ? entry : entry.substring(0, eq), eq < 0 ? "" : entry.substring(eq + 1));
            }
        }
        return environment;
    }

    /** The published ports, as written ({@code "127.0.0.1:3000:3000"}; the long form as host_ip:published:target). */
    private static List<String> ports(Map<String, Object> service) {
        List<String> ports = new ArrayList<>();
        if (service.get("ports") instanceof List<?> list) {
            for (Object port : list) {
                if (port instanceof Map<?, ?> long_) {
                    ports.add(long_.get("host_ip") + ":" + long_.get("published") + ":" + long_.get("target"));
                } else {
                    ports.add(String.valueOf(port));
                }
            }
        }
        return ports;
    }

    /** The networks a service joins; compose's {@code default} when it names none. */
    private static Set<String> networks(Map<String, Object> service) {
        Object value = service.get("networks");
        if (value instanceof Map<?, ?> map) {
            return map.keySet().stream().map(Object::toString).collect(Collectors.toSet());
        }
        if (value instanceof List<?> list) {
            return list.stream().map(Object::toString).collect(Collectors.toSet());
        }
        return Set.of("default");
    }

    private static String healthcheckTest(Map<String, Object> service) {
        if (!(service.get("healthcheck") instanceof Map<?, ?> healthcheck)
                || Boolean.TRUE.equals(healthcheck.get("disable"))) {
            return "";
        }
        Object test = healthcheck.get("test");
        return test == null ? "" : test.toString();
    }

    /**
     * The longest {@code spring.lifecycle.timeout-per-shutdown-phase} in the module's own configuration files
     * ({@code src/main/resources/*.yml}, every profile), or Spring Boot's default when none sets it.
     */
    private static Duration shutdownPhaseTimeout(String module) {
        Path resources = ROOT.resolve(module).resolve("src/main/resources");
        assertThat(resources).as("resources of module %s", module).isDirectory();
        Duration longest = null;
        try (Stream<Path> files = Files.list(resources)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yml")).toList()) {
                try (Reader reader = Files.newBufferedReader(file)) {
                    for (Object document : new Yaml().loadAll(reader)) {
                        Object value = at(document, "spring", "lifecycle", "timeout-per-shutdown-phase");
                        if (value != null) {
                            Duration timeout = DurationStyle.detectAndParse(value.toString());
                            longest = longest == null || timeout.compareTo(longest) > 0 ? timeout : longest;
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return longest == null ? SPRING_DEFAULT_SHUTDOWN_PHASE : longest;
    }

    /** A value in nested YAML maps, by path; also finds keys written in dotted form ("spring.lifecycle: ..."). */
    private static Object at(Object node, String... path) {
        if (path.length == 0) {
            return node;
        }
        if (!(node instanceof Map<?, ?> map)) {
            return null;
        }
        for (int i = path.length; i >= 1; i--) {
            String key = String.join(".", java.util.Arrays.copyOfRange(path, 0, i));
            if (map.containsKey(key)) {
                Object found = at(map.get(key), java.util.Arrays.copyOfRange(path, i, path.length));
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    /** The Dockerfile's instructions, one per entry: continuation lines joined, comments and blank lines dropped. */
    private static List<String> dockerInstructions(Path dockerfile) throws IOException {
        List<String> instructions = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : Files.readAllLines(dockerfile)) {
            String trimmed = line.strip();
            if (trimmed.startsWith("#") || (trimmed.isEmpty() && current.isEmpty())) {
                continue;
            }
            if (trimmed.endsWith("\\")) {
                current.append(trimmed, 0, trimmed.length() - 1).append(' ');
                continue;
            }
            current.append(trimmed);
            instructions.add(current.toString().replaceAll("\\s+", " ").strip() + " ");
            current.setLength(0);
        }
        return instructions;
    }
}
