package com.flashcoupon.api.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * A keep-alive connection keeps being read after requests queued behind a slow one are answered at once. Reactor Netty
 * 1.3.7 stopped reading such a connection (reactor/reactor-netty#4361): a crowd's request answered without an
 * asynchronous hop (a local refusal, a 401, a 503 while Redis is down) now and then left the next request on its
 * connection unanswered until the client gave up. The root pom pins the fixed release; this test fails on 1.3.7
 * every time.
 */
@ApiTest
class KeepAliveTest extends ApiTestBase {

    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.1 (\\d{3}) ");

    @LocalServerPort
    int port;

    @Test
    void shouldAnswerEveryRequestOnAConnectionAfterPipelinedRequestsAnsweredAtOnce() throws IOException {
        // A coupon this api has never seen: Redis, then MySQL are asked before the 404 (an asynchronous answer).
        String slow = "POST /api/v1/coupons/987654321/issue-requests HTTP/1.1\r\nHost: localhost\r\n"
                + "Authorization: Bearer " + TestEnvironment.memberToken("keep-alive") + "\r\n"
                + "Content-Length: 0\r\n\r\n";
        // No token: the security chain answers 401 on the spot, before any I/O.
        String immediate =
                "POST /api/v1/coupons/1/issue-requests HTTP/1.1\r\nHost: localhost\r\n" + "Content-Length: 0\r\n\r\n";

        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000); // only a hung connection waits this long
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write((slow + immediate + immediate).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readStatuses(in, 3)).isEqualTo("404 401 401");

            out.write(immediate.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readStatuses(in, 1))
                    .as("a request sent after the pipelined ones, on the same connection")
                    .isEqualTo("401");
        }
    }

    /** Reads until {@code count} status lines arrived (or the socket time-out); returns their codes. */
    private static String readStatuses(InputStream in, int count) throws IOException {
        StringBuilder received = new StringBuilder();
        byte[] buffer = new byte[8192];
        while (statuses(received).split(" ").length < count
                || statuses(received).isEmpty()) {
            int read;
            try {
                read = in.read(buffer);
            } catch (SocketTimeoutException e) {
                break;
            }
            if (read < 0) {
                break;
            }
            received.append(new String(buffer, 0, read, StandardCharsets.US_ASCII));
        }
        return statuses(received);
    }

    private static String statuses(CharSequence received) {
        Matcher matcher = STATUS_LINE.matcher(received);
        StringBuilder codes = new StringBuilder();
        while (matcher.find()) {
            codes.append(codes.isEmpty() ? "" : " ").append(matcher.group(1));
        }
        return codes.toString();
    }
}
