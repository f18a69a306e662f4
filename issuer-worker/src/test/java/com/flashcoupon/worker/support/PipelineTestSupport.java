package com.flashcoupon.worker.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.db.TestDatabase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The base of the worker's pipeline tests: the whole worker of {@link PipelineTest}, pointed at a throw-away MariaDB
 * database and at the test Redis ({@link TestRedis}, flushed before each class). The database is created once per test
 * JVM and dropped when it exits: every test makes coupons of its own and looks only at those, and each test class
 * with its own configuration gets its own app and in-process broker.
 */
@PipelineTest
public abstract class PipelineTestSupport {

    /** How long a test waits for the pipeline to catch up. */
    protected static final Duration PATIENCE = Duration.ofSeconds(60);

    private static final TestDatabase DATABASE = TestDatabase.create();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(DATABASE::close, "drop-test-database"));
    }

    @Autowired
    protected Pipeline pipeline;

    @DynamicPropertySource
    static void services(DynamicPropertyRegistry registry) {
        Pipeline.register(registry, DATABASE);
    }

    @BeforeAll
    static void flushRedis() {
        TestRedis.flush();
    }

    /** The coupon's result events once there are {@code count}, failing when more or fewer come. */
    protected List<IssueResult> awaitResults(long couponId, int count) {
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(pipeline.results(couponId)).hasSizeGreaterThanOrEqualTo(count));
        List<IssueResult> results = pipeline.results(couponId);
        assertThat(results).hasSize(count);
        return results;
    }
}
