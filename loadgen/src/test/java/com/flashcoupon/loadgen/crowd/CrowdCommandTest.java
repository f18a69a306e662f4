package com.flashcoupon.loadgen.crowd;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.loadgen.Flags;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The whole command against {@link FakeApi}; there is no database, so the invariants cannot be checked. */
class CrowdCommandTest {

    private final FakeApi api = new FakeApi();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void stop() {
        api.close();
    }

    private int crowd(String... extra) throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        List<String> args = new ArrayList<>(List.of(
                "--api", api.url(),
                "--members", "300",
                "--coupons", "100",
                "--twice", "0.5",
                "--concurrency", "16",
                "--progress", "lines",
                "--wait", "5s",
                "--db-url", "jdbc:mysql://127.0.0.1:" + closedPort + "/coupon?connectTimeout=2000"));
        args.addAll(List.of(extra));
        Map<String, String> env = Map.of();
        return new CrowdCommand(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(Flags.parse(args, CrowdCommand.options(), env), env);
    }

    @Test
    void shouldSendTheCrowdAndReportWhatItWasAnswered() throws Exception {
        int exit = crowd();

        String summary = out.toString(StandardCharsets.UTF_8);
        assertThat(summary)
                .contains("coupon 7: 100 coupons issued at 2,000/s")
                .contains("450 requests from 300 members (150 asking twice), 16 in flight")
                .contains("statuses    202: 100, 200: ")
                .contains("409 NOT_OPEN: 0, 429: 0, 503: 0, connection error: 0")
                .contains("issuance    100 wallets + 0 FAILED of 100 admitted")
                .contains("positions answered with 202: 1 … 100")
                .contains("invariants not checked: cannot read jdbc:mysql://")
                .contains("invariants  NOT CHECKED")
                .endsWith("result      FAIL\n");
        assertThat(exit).isEqualTo(CrowdCommand.FAILED);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("minted 300 member tokens")
                .contains("created coupon 7")
                .contains("crowd     [####################] 450/450");
    }

    @Test
    void shouldShowUnexpectedAnswers() throws Exception {
        api.refuseMembersWith(401);

        crowd();

        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("statuses    202: 0, 200: 0, 409 SOLD_OUT: 0")
                .contains("HTTP 401: 450")
                .contains("first unexpected answer: 401 {\"code\":\"UNAUTHORIZED\"}");
    }

    @Test
    void shouldGiveUpWhenTheApiIsNotThere() throws Exception {
        api.close();

        assertThat(crowd()).isEqualTo(CrowdCommand.BROKEN);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("cannot create the coupon");
    }
}
