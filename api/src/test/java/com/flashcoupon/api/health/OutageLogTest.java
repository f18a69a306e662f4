package com.flashcoupon.api.health;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class OutageLogTest {

    @Test
    void shouldWriteOneLineWhenAnOutageStartsAndOneWhenItEnds() {
        Logger logger = (Logger) LoggerFactory.getLogger("outage-log-test");
        logger.setLevel(Level.INFO);
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        OutageLog outage = new OutageLog(logger, "draining");

        outage.succeeded(); // nothing was failing: nothing to say
        for (int attempt = 0; attempt < 50; attempt++) {
            outage.failed("coupon 7", new IOException("Connection refused"));
        }
        assertThat(outage.failing()).isTrue();
        outage.succeeded();
        outage.succeeded();
        outage.failed("coupon 8", new IOException("Connection reset"));

        assertThat(lines.list)
                .extracting(ILoggingEvent::getLevel, ILoggingEvent::getFormattedMessage)
                .hasSize(3)
                .satisfies(events -> {
                    assertThat(events.get(0).toList())
                            .containsExactly(
                                    Level.WARN,
                                    "draining failing (coupon 7): java.io.IOException: Connection refused; retrying,"
                                            + " logged again when it works");
                    assertThat(events.get(1).toList().get(0)).isEqualTo(Level.INFO);
                    assertThat((String) events.get(1).toList().get(1))
                            .startsWith("draining works again after ")
                            .endsWith(" ms and 50 failed attempts");
                    assertThat(events.get(2).toList().get(0)).isEqualTo(Level.WARN);
                });
        assertThat(lines.list).noneMatch(event -> event.getThrowableProxy() != null);
    }
}
