package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The pipeline on a database where each app is a user of its own: the users and grants of
 * {@code deploy/mysql-users.sql}, created by an administrator ({@code root}, {@code COUPON_TEST_DB_ROOT_USER} and
 * {@code COUPON_TEST_DB_ROOT_PASSWORD}), the schema migrated by the third user, and neither app migrating. Members are
 * admitted and issued; then the worker is refused what only the api writes (and the draws' seeds), the api what only
 * the worker writes, and every table has the api's grants (so that a new table cannot go without).
 */
class MySqlUsersTest {

    private static final String SUFFIX =
            Integer.toString(ThreadLocalRandom.current().nextInt(1 << 24), 36);
    private static final String API_USER = "fc_api_" + SUFFIX;
    private static final String WORKER_USER = "fc_worker_" + SUFFIX;
    private static final String MIGRATION_USER = "fc_migrate_" + SUFFIX;
    private static final String PASSWORD = "pw_" + SUFFIX;

    private static Stack stack;
    /** A Redis of the test's own: whatever other stack runs at once, none shares its keys (coupon ids start at 1). */
    private static PrivateRedis redis;

    private static String database;
    private static String url;

    @BeforeAll
    static void start() throws Exception {
        redis = new PrivateRedis();
        stack = new Stack(
                Map.of("spring.data.redis.url", redis.url()),
                Map.of("spring.data.redis.url", redis.url()),
                null,
                MySqlUsersTest::grant);
    }

    /** Creates the users on the stack's fresh database and migrates it as the migration user; the apps' settings. */
    private static Map<String, Map<String, Object>> grant(String jdbcUrl) {
        url = jdbcUrl;
        database = jdbcUrl.substring(jdbcUrl.lastIndexOf('/') + 1, jdbcUrl.indexOf('?'));
        asRoot("deploy/mysql-migration-user.sql");
        Flyway.configure()
                .dataSource(new DriverManagerDataSource(url, MIGRATION_USER, PASSWORD))
                .load()
                .migrate();
        asRoot("deploy/mysql-users.sql");
        return Map.of("api", app(API_USER), "worker", app(WORKER_USER));
    }

    private static Map<String, Object> app(String user) {
        return Map.of(
                "spring.datasource.username", user,
                "spring.datasource.password", PASSWORD,
                "COUPON_DB_MIGRATE", "false");
    }

    /** Runs the shipped SQL file with this test's names, as bin/lib/mysql-users.sh writes it, as the administrator. */
    private static void asRoot(String file) {
        try (Connection root = DriverManager.getConnection(
                        url,
                        env("COUPON_TEST_DB_ROOT_USER", "root"),
                        System.getenv().getOrDefault("COUPON_TEST_DB_ROOT_PASSWORD", ""));
                var statement = root.createStatement()) {
            for (String sql : statements(file)) {
                statement.execute(sql);
            }
        } catch (SQLException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> statements(String file) throws IOException {
        String sql = Files.readString(DeploymentFilesTest.repositoryRoot().resolve(file))
                .replace("@DATABASE@", database)
                .replace("@API_USER@", API_USER)
                .replace("@WORKER_USER@", WORKER_USER)
                .replace("@MIGRATION_USER@", MIGRATION_USER)
                .replaceAll("@[A-Z]+_PASSWORD@", PASSWORD);
        StringBuilder kept = new StringBuilder();
        sql.lines()
                .filter(line -> !line.startsWith("--"))
                .forEach(line -> kept.append(line).append('\n'));
        return java.util.Arrays.stream(kept.toString().split(";"))
                .map(String::strip)
                .filter(statement -> !statement.isEmpty())
                .toList();
    }

    @AfterAll
    static void stop() throws SQLException, InterruptedException {
        if (stack != null) {
            stack.close();
        }
        if (redis != null) {
            redis.close();
        }
        try (Connection root = DriverManager.getConnection(
                        url.substring(0, url.lastIndexOf('/') + 1),
                        env("COUPON_TEST_DB_ROOT_USER", "root"),
                        System.getenv().getOrDefault("COUPON_TEST_DB_ROOT_PASSWORD", ""));
                var statement = root.createStatement()) {
            for (String user : List.of(API_USER, WORKER_USER, MIGRATION_USER)) {
                statement.execute("DROP USER IF EXISTS '" + user + "'@'%'");
            }
        }
    }

    @Test
    void shouldIssueWithEachAppAsItsOwnUserAndRefuseEachTheOthersTables() {
        long couponId = stack.createCoupon("MySQL users", 50, 1_000);

        List<Crowd.Answer> answers = Crowd.ask(stack.apiUrl(), couponId, Crowd.members("mysql-users", 80), 0, 16);

        assertThat(Crowd.countByStatus(answers))
                .as(
                        "answers; the event as a member sees it: %s",
                        new String(stack.http()
                                .get()
                                .uri("/api/v1/coupons/{id}", couponId)
                                .header("Authorization", "Bearer " + Stack.token("mysql-users-0", List.of()))
                                .exchange()
                                .expectBody()
                                .returnResult()
                                .getResponseBodyContent()))
                .containsEntry(202, 50L);
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> stack.walletCount(couponId) + stack.failureCount(couponId) == 50);
        assertThat(stack.walletCount(couponId)).isEqualTo(50);

        JdbcClient worker = as(WORKER_USER);
        assertRefused(() -> worker.sql("UPDATE coupon SET total_quantity = total_quantity + 100 WHERE id = ?")
                .param(couponId)
                .update());
        assertRefused(() -> worker.sql("UPDATE coupon SET issue_rate_per_second = 1 WHERE id = ?")
                .param(couponId)
                .update());
        assertRefused(() -> worker.sql("SELECT seed FROM coupon_draw").query().listOfRows());
        assertRefused(() -> worker.sql("DELETE FROM coupon_eligible_member").update());
        assertRefused(
                () -> worker.sql("UPDATE coupon_wallet SET state = 'AVAILABLE'").update());

        JdbcClient api = as(API_USER);
        assertRefused(
                () -> api.sql("INSERT INTO coupon_wallet (coupon_id, member_id, request_seq, issued_at, expires_at)"
                                + " VALUES (?, 'extra', 999999, NOW(6), NOW(6))")
                        .param(couponId)
                        .update());
        assertRefused(() -> api.sql("DELETE FROM coupon_wallet").update());
        assertRefused(() -> api.sql("INSERT INTO coupon_issue_failure (coupon_id, member_id, request_seq, reason,"
                        + " failed_at) VALUES (?, 'x', 1, 'SOLD_OUT', NOW(6))")
                .param(couponId)
                .update());
        assertRefused(() -> api.sql("DROP TABLE coupon_wallet_change").update());

        List<String> ungranted = stack.jdbc
                .sql("SELECT table_name FROM information_schema.tables WHERE table_schema = ?"
                        + " AND table_name <> 'flyway_schema_history' AND table_name NOT IN (SELECT table_name FROM"
                        + " information_schema.table_privileges WHERE table_schema = ? AND grantee = ?)")
                .params(database, database, "'" + API_USER + "'@'%'")
                .query(String.class)
                .list();
        assertThat(ungranted)
                .as("tables without a grant for the api in deploy/mysql-users.sql")
                .isEmpty();
    }

    private static JdbcClient as(String user) {
        return JdbcClient.create(new DriverManagerDataSource(url, user, PASSWORD));
    }

    private static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable statement) {
        assertThatThrownBy(statement).hasStackTraceContaining("denied");
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
