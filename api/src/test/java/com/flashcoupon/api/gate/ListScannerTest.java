package com.flashcoupon.api.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.api.web.ErrorCode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The eligibility list read as it arrives: lines as BufferedReader ends them, bad lines named, caps held. */
class ListScannerTest {

    private static ListScanner scan(long maxBytes, long maxLines, String... pieces) {
        var scanner = new ListScanner(maxBytes, maxLines);
        for (String piece : pieces) {
            scanner.feed(ByteBuffer.wrap(piece.getBytes(StandardCharsets.ISO_8859_1)));
        }
        scanner.finish();
        return scanner;
    }

    @Test
    void shouldNameBadLinesByTheNumbersBufferedReaderGives() {
        // \r\n split across two buffers is one line end; a lone \r ends a line too; blank lines are skipped
        var scanner = scan(1_000, 100, "a\r", "\nnot valid\rb\n\n", "x".repeat(65), "\nc");

        assertThat(scanner.bad()).isEqualTo(2);
        assertThat(scanner.errors()).extracting(error -> error.field()).containsExactly("line 2", "line 5");
        assertThat(scanner.bytes()).isEqualTo(2 + 14 + 65 + 2);
    }

    @Test
    void shouldStopAtTheFirstCapPassed() {
        assertThatThrownBy(() -> scan(10, 100, "abcdef\n", "ghijk\n")).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
            assertThat(e.properties()).containsEntry("cap", "COUPON_ELIGIBILITY_MAX_BYTES");
        });
        assertThatThrownBy(() -> scan(1_000, 2, "a\nb\nc")).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.INVALID_REQUEST);
            assertThat(e.properties()).containsEntry("cap", "COUPON_ELIGIBILITY_MAX_LINES");
        });
        // a line over the line cap is refused before its end arrives: it is never held
        var scanner = new ListScanner(10_000, 100);
        scanner.feed(ByteBuffer.wrap("ok\n".getBytes(StandardCharsets.ISO_8859_1)));
        assertThatThrownBy(() -> scanner.feed(ByteBuffer.wrap(new byte[ListScanner.MAX_LINE_BYTES + 1])))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.getMessage()).startsWith("Line 2 is longer than 1024 bytes");
                    assertThat(e.properties()).containsEntry("cap", "line length");
                });
        assertThat(scan(1_000, 2, "a\nb\n").bad()).isZero();
    }
}
