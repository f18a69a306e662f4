package com.flashcoupon.api.gate;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.gatestate.GateRepository;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.api.web.ErrorCode;
import com.flashcoupon.api.web.Problems;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Replaces an event's eligibility list from a {@code text/plain} body, one member id per line, in constant memory: the
 * body is spooled to a temporary file as it arrives (on the blocking executor, buffer by buffer), checked whole (every
 * line a member id by the {@code sub} rules; blank lines are skipped), and only then written to MySQL as a new upload
 * in batches, which becomes the list in one statement. A bad line refuses the whole upload: nothing is replaced.
 */
@Component
class EligibleUpload {

    private static final Logger log = LoggerFactory.getLogger(EligibleUpload.class);

    /** The {@code sub} rules (docs/http-api.md, Authentication). */
    static final Pattern MEMBER_ID = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

    /** Bad lines named in a refusal; the others are counted. */
    static final int MAX_REPORTED = 100;

    private static final int BATCH = 2_000;
    private static final int DELETE_BATCH = 10_000;

    private final GateRepository gates;
    private final BlockingIo blocking;

    EligibleUpload(GateRepository gates, BlockingIo blocking) {
        this.gates = gates;
        this.blocking = blocking;
    }

    /** Bad lines: {@code errors} names up to {@link #MAX_REPORTED} of them by line number, {@code bad} counts all. */
    static final class BadLines extends RuntimeException {
        final transient List<Problems.FieldError> errors;
        final long bad;

        BadLines(List<Problems.FieldError> errors, long bad) {
            super(bad + " bad lines", null, false, false);
            this.errors = errors;
            this.bad = bad;
        }
    }

    /** Spools, checks and stores the list; its size (distinct members). Fails with {@link BadLines}. */
    Mono<Long> replace(long couponId, Flux<DataBuffer> body) {
        return Mono.usingWhen(
                blocking.call(() -> Files.createTempFile("eligible-" + couponId + "-", ".txt")),
                file -> spool(body, file).then(blocking.call(() -> store(couponId, file))),
                file -> blocking.run(() -> delete(file)));
    }

    private Mono<Void> spool(Flux<DataBuffer> body, Path file) {
        return Mono.usingWhen(
                blocking.call(() -> FileChannel.open(file, StandardOpenOption.WRITE)),
                channel -> body.concatMap(buffer -> blocking.run(() -> {
                            try (var readable = buffer.readableByteBuffers()) {
                                while (readable.hasNext()) {
                                    var bytes = readable.next();
                                    while (bytes.hasRemaining()) {
                                        channel.write(bytes);
                                    }
                                }
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            } finally {
                                DataBufferUtils.release(buffer);
                            }
                        }))
                        .then(),
                channel -> blocking.run(() -> close(channel)));
    }

    private long store(long couponId, Path file) throws IOException {
        check(file);
        long generation = gates.nextGeneration(couponId);
        long lines = 0;
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
            List<String> batch = new ArrayList<>(BATCH);
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (!line.isEmpty()) {
                    batch.add(line);
                    lines++;
                }
                if (batch.size() == BATCH) {
                    gates.insertMembers(couponId, generation, batch);
                    batch.clear();
                }
            }
            gates.insertMembers(couponId, generation, batch);
        }
        long count = gates.switchTo(couponId, generation);
        // the rows to keep: this upload's, unless it did not become the list (then whichever upload is the list)
        long kept = count == GateRepository.OPENED ? currentGeneration(couponId) : generation;
        if (count == GateRepository.OPENED) {
            log.warn(
                    "coupon {}: upload {} of the eligibility list ended after the event opened; refused",
                    couponId,
                    generation);
        } else if (count == GateRepository.OVERTAKEN) {
            log.warn("coupon {}: upload {} of the eligibility list was overtaken by a later one", couponId, generation);
            count = gates.find(couponId).map(GateRepository.Stored::listCount).orElse(0L);
        } else {
            log.info("coupon {}: eligibility list {} stored, {} lines, {} members", couponId, generation, lines, count);
        }
        removeOthers(couponId, kept);
        if (count == GateRepository.OPENED) {
            throw ApiException.of(
                    ErrorCode.ALREADY_OPEN,
                    "Coupon " + couponId + " opened before this upload of its list ended; who it is for no longer"
                            + " changes, and the list was not replaced.");
        }
        return count;
    }

    /** Removes, off the request, the rows of every upload but the list's ({@code kept}, or a later one by then). */
    private void removeOthers(long couponId, long kept) {
        blocking.run(() -> {
                    long removed = 0;
                    for (int gone = DELETE_BATCH; gone == DELETE_BATCH; removed += gone) {
                        gone = gates.removeOthers(couponId, Math.max(kept, currentGeneration(couponId)), DELETE_BATCH);
                    }
                    log.info("coupon {}: {} rows of earlier eligibility uploads removed", couponId, removed);
                })
                .subscribe(
                        null,
                        error -> log.warn("coupon {}: earlier uploads not removed: {}", couponId, error.toString()));
    }

    private long currentGeneration(long couponId) {
        return gates.find(couponId).map(GateRepository.Stored::listGeneration).orElse(0L);
    }

    /** Every line a member id or blank; a {@code \r} before the line end is dropped (CRLF files). */
    private static void check(Path file) throws IOException {
        List<Problems.FieldError> errors = new ArrayList<>();
        long bad = 0;
        long number = 0;
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                number++;
                if (!line.isEmpty() && !MEMBER_ID.matcher(line).matches()) {
                    bad++;
                    if (errors.size() < MAX_REPORTED) {
                        errors.add(new Problems.FieldError(
                                "line " + number, "not a member id (1 to 64 characters of A-Za-z0-9._:-)"));
                    }
                }
            }
        }
        if (bad > 0) {
            throw new BadLines(errors, bad);
        }
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            log.warn("the upload's temporary file {} was not removed: {}", file, e.toString());
        }
    }

    private static void close(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
