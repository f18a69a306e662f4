package com.flashcoupon.db;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A throw-away database on the real MySQL-compatible server, one per test class, so test classes never see each
 * other's rows. The server and credentials come from {@code COUPON_DB_URL} (its database part is replaced),
 * {@code COUPON_DB_USER} and {@code COUPON_DB_PASSWORD}, with the local defaults of {@code bin/up}.
 */
public final class TestDatabase implements AutoCloseable {

    private static final String SERVER = serverUrl(env("COUPON_DB_URL", "jdbc:mysql://127.0.0.1:3306/coupon"));
    private static final String USER = env("COUPON_DB_USER", "coupon");
    private static final String PASSWORD = env("COUPON_DB_PASSWORD", "coupon");
    private static final String OPTIONS = "?connectionTimeZone=UTC&forceConnectionTimeZoneToSession=true"
            + "&rewriteBatchedStatements=true&allowPublicKeyRetrieval=true&useSSL=false";

    private final String name;

    private TestDatabase(String name) {
        this.name = name;
    }

    public static TestDatabase create() {
        String name = "coupon_test_" + Long.toString(System.currentTimeMillis(), 36)
                + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 20), 36);
        execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        return new TestDatabase(name);
    }

    public String url() {
        return SERVER + name + OPTIONS;
    }

    public String user() {
        return USER;
    }

    public String password() {
        return PASSWORD;
    }

    /** Spring properties that point an app at this database. */
    public Map<String, String> springProperties() {
        return Map.of(
                "spring.datasource.url",
                url(),
                "spring.datasource.username",
                USER,
                "spring.datasource.password",
                PASSWORD,
                // The tests' apps share one MySQL server whose default limit is 151 connections, and Spring keeps
                // every test context it built alive, each with its pool: a pool that keeps all its connections open
                // when idle (the apps' default) passed the limit with the api's and the pipeline's tests running at
                // once ("Too many connections"). Idle connections beyond one close after 10 s (milliseconds: Hikari
                // binds a number).
                "spring.datasource.hikari.minimum-idle",
                "1",
                "spring.datasource.hikari.idle-timeout",
                "10000");
    }

    /** A data source on this database, its schema migrated by Flyway as the apps do at start-up. */
    public DataSource migratedDataSource() {
        var dataSource = new DriverManagerDataSource(url(), USER, PASSWORD);
        Flyway.configure().dataSource(dataSource).load().migrate();
        return dataSource;
    }

    @Override
    public void close() {
        execute("DROP DATABASE IF EXISTS " + name);
    }

    private static void execute(String sql) {
        try (var connection = DriverManager.getConnection(SERVER + OPTIONS, USER, PASSWORD);
                var statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot reach the test database server at " + SERVER + " as " + USER
                            + " (run bin/up or bin/test once: they create that user): " + e.getMessage(),
                    e);
        }
    }

    private static String serverUrl(String url) {
        int query = url.indexOf('?');
        String base = query < 0 ? url : url.substring(0, query);
        int slash = base.indexOf('/', "jdbc:mysql://".length());
        return (slash < 0 ? base : base.substring(0, slash)) + "/";
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
