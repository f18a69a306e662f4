package com.flashcoupon.api.gate;

import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.api.web.ErrorCode;
import com.flashcoupon.api.web.Problems;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads an eligibility list as it arrives, byte by byte, holding no line: counts its bytes and lines against their
 * caps, refuses at once a line longer than {@link #MAX_LINE_BYTES}, and checks every line as a member id (blank lines
 * are skipped). Lines end as {@code BufferedReader} ends them ({@code \n}, {@code \r} or {@code \r\n}), so the lines it
 * numbers are those the upload then stores. One upload's scanner is fed by one thread at a time.
 */
final class ListScanner {

    /**
     * The longest line read at all: a member id is at most 64 characters, so a longer line is a bad line (named like
     * any other), and one longer than this is not a list at all: the upload stops at once.
     */
    static final int MAX_LINE_BYTES = 1024;

    /** The longest member id (docs/http-api.md, Authentication: the {@code sub} rules). */
    private static final int MAX_ID = 64;

    private final long maxBytes;
    private final long maxLines;
    private final List<Problems.FieldError> errors = new ArrayList<>();
    private long bytes;
    private long lines;
    private long bad;
    private int length;
    private boolean valid = true;
    private boolean afterCarriageReturn;

    ListScanner(long maxBytes, long maxLines) {
        this.maxBytes = maxBytes;
        this.maxLines = maxLines;
    }

    /**
     * Reads the next bytes.
     *
     * @throws ApiException 413 PAYLOAD_TOO_LARGE past {@code maxBytes}; 400 INVALID_REQUEST for a line longer than
     *     {@link #MAX_LINE_BYTES}, or more lines than {@code maxLines}: each with {@code cap} naming what was passed
     */
    void feed(ByteBuffer buffer) {
        bytes += buffer.remaining();
        if (bytes > maxBytes) {
            throw ApiException.of(
                            ErrorCode.PAYLOAD_TOO_LARGE,
                            "The eligibility list is over " + maxBytes
                                    + " bytes (COUPON_ELIGIBILITY_MAX_BYTES); nothing was replaced.")
                    .with("cap", "COUPON_ELIGIBILITY_MAX_BYTES")
                    .with("limit", maxBytes);
        }
        for (int i = buffer.position(); i < buffer.limit(); i++) {
            byte b = buffer.get(i);
            if (b == '\n' && afterCarriageReturn) {
                afterCarriageReturn = false; // the second half of \r\n
                continue;
            }
            afterCarriageReturn = b == '\r';
            if (b == '\n' || b == '\r') {
                endLine();
            } else {
                take(b);
            }
        }
    }

    /** The end of the body: its last line, if it has no line end. */
    void finish() {
        if (length > 0) {
            endLine();
        }
    }

    /** The bytes read so far. */
    long bytes() {
        return bytes;
    }

    long bad() {
        return bad;
    }

    /** The bad lines named, at most {@link EligibleUpload#MAX_REPORTED}. */
    List<Problems.FieldError> errors() {
        return errors;
    }

    private void take(byte b) {
        length++;
        if (length > MAX_LINE_BYTES) {
            throw ApiException.of(
                            ErrorCode.INVALID_REQUEST,
                            "Line " + (lines + 1) + " is longer than " + MAX_LINE_BYTES
                                    + " bytes (a member id is at most 64 characters); nothing was replaced.")
                    .with("cap", "line length")
                    .with("limit", MAX_LINE_BYTES);
        }
        valid &= length <= MAX_ID && isIdCharacter(b);
    }

    private void endLine() {
        lines++;
        if (lines > maxLines) {
            throw ApiException.of(
                            ErrorCode.INVALID_REQUEST,
                            "The eligibility list has more than " + maxLines
                                    + " lines (COUPON_ELIGIBILITY_MAX_LINES); nothing was replaced.")
                    .with("cap", "COUPON_ELIGIBILITY_MAX_LINES")
                    .with("limit", maxLines);
        }
        if (length > 0 && !valid) {
            bad++;
            if (errors.size() < EligibleUpload.MAX_REPORTED) {
                errors.add(new Problems.FieldError(
                        "line " + lines, "not a member id (1 to 64 characters of A-Za-z0-9._:-)"));
            }
        }
        length = 0;
        valid = true;
    }

    private static boolean isIdCharacter(byte b) {
        return (b >= 'a' && b <= 'z')
                || (b >= 'A' && b <= 'Z')
                || (b >= '0' && b <= '9')
                || b == '.'
                || b == '_'
                || b == ':'
                || b == '-';
    }
}
