import org.flywaydb.core.Flyway;

/**
 * Runs the schema migrations of the db module on one database as the migrations' own MySQL user, and nothing else:
 * bin/up --cluster migrates this way before its apps start, each as its own narrower user that may not change the
 * schema (deploy/mysql-users.sql). The same migrations and locations as the apps' spring.flyway settings. Run with
 * the source launcher on the db module's runtime class path and its classes:
 *
 * <pre>FC_DB_MIGRATION_USER=... FC_DB_MIGRATION_PASSWORD=... java -cp "$cp:db/target/classes" bin/lib/Migrate.java JDBC_URL</pre>
 */
public class Migrate {

    public static void main(String[] args) {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: Migrate JDBC_URL (user and password from FC_DB_MIGRATION_USER"
                    + " and FC_DB_MIGRATION_PASSWORD)");
        }
        Flyway flyway = Flyway.configure()
                .dataSource(args[0], env("FC_DB_MIGRATION_USER"), env("FC_DB_MIGRATION_PASSWORD"))
                .locations("classpath:db/migration")
                .load();
        int executed = flyway.migrate().migrationsExecuted;
        var current = flyway.info().current();
        System.out.println("schema version " + (current == null ? "none" : current.getVersion()) + ", " + executed
                + " migrations run now");
    }

    private static String env(String name) {
        String value = System.getenv(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(name + " is not set");
        }
        return value;
    }
}
