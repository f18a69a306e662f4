package com.flashcoupon.worker.support;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * The app's DataSource, able to refuse the next connections the way a MySQL outage does. {@code @Import}
 * {@link Installer} to put it in front of the app's pool.
 */
public final class FlakyDataSource extends DelegatingDataSource {

    /** Wraps the app's DataSource bean, so that the transaction manager, JdbcClient and Flyway all go through it. */
    public static final class Installer implements BeanPostProcessor {

        @Override
        public Object postProcessAfterInitialization(Object bean, String name) {
            return bean instanceof DataSource target && !(bean instanceof FlakyDataSource)
                    ? new FlakyDataSource(target)
                    : bean;
        }
    }

    private final AtomicInteger refusalsLeft = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();

    public FlakyDataSource(DataSource target) {
        super(target);
    }

    /** The next {@code n} connection requests fail with {@link SQLTransientConnectionException}. */
    public void refuseNext(int n) {
        refusalsLeft.set(n);
    }

    public int refused() {
        return refused.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        if (refusalsLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            refused.incrementAndGet();
            throw new SQLTransientConnectionException("test outage: connection refused");
        }
        return super.getConnection();
    }
}
