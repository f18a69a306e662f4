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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Replaces an event's eligibility list from a {@code text/plain} body, one member id per line, in constant memory: the
 * body is read as it arrives (on the blocking executor, buffer by buffer) by a {@link ListScanner}, which checks every
 * line (a member id by the {@code sub} rules; blank lines are skipped) and holds the body to its caps, and spooled to
 * a temporary file within this instance's temporary disk budget ({@link UploadCaps}); only a list that passed whole is
 * then written to MySQL as a new upload in batches, which becomes the list in one statement. A bad line, or a cap
 * passed, refuses the whole upload: nothing is replaced.
 */
@Component
class EligibleUpload {

    private static final Logger log = LoggerFactory.getLogger(EligibleUpload.class);

    /** Bad lines named in a refusal; the others are counted. */
    static final int MAX_REPORTED = 100;

    private static final int BATCH = 2_000;
    private static final int DELETE_BATCH = 10_000;

    private final GateRepository gates;
    private final BlockingIo blocking;
    private final UploadCaps caps;

    EligibleUpload(GateRepository gates, BlockingIo blocking, UploadCaps caps) {
        this.gates = gates;
        this.blocking = blocking;
        this.caps = caps;
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

    /**
     * One upload's temporary file, its scanner, and the temporary disk it reserved. Reserving and giving back are
     * serialised, so that a buffer still being written when the upload was cancelled reserves nothing after the end.
     */
    private final class Spool {
        final Path file;
        final ListScanner scanner;
        private long reserved;
        private boolean ended;

        Spool(Path file, ListScanner scanner, long reserved) {
            this.file = file;
            this.scanner = scanner;
            this.reserved = reserved;
        }

        /** Reserves what the body has brought beyond what was reserved (a chunked body's, or a declared one's). */
        synchronized void reserveRead() {
            long more = scanner.bytes() - reserved;
            if (more > 0 && !ended) {
                caps.reserve(more);
                reserved += more;
            }
        }

        synchronized void end() {
            if (!ended) {
                ended = true;
                caps.release(reserved);
            }
        }
    }

    /**
     * Spools, checks and stores the list; its size (distinct members). {@code contentLength} is the declared length, -1
     * when the body is chunked. Fails with {@link BadLines}, or a cap's problem (413 or 400).
     */
    Mono<Long> replace(long couponId, Flux<DataBuffer> body, long contentLength) {
        return Mono.defer(() -> {
            caps.checkDeclared(contentLength);
            return Mono.usingWhen(
                    open(couponId, Math.max(0, contentLength)),
                    spool -> spool(body, spool).then(blocking.call(() -> store(couponId, spool))),
                    spool -> blocking.run(() -> close(spool)));
        });
    }

    /** A new temporary file, its declared length reserved first (413 when the disk budget cannot take it). */
    private Mono<Spool> open(long couponId, long declared) {
        return blocking.call(() -> {
            caps.reserve(declared);
            try {
                return new Spool(Files.createTempFile("eligible-" + couponId + "-", ".txt"), caps.scanner(), declared);
            } catch (IOException | RuntimeException e) {
                caps.release(declared);
                throw e;
            }
        });
    }

    private Mono<Void> spool(Flux<DataBuffer> body, Spool spool) {
        return Mono.usingWhen(
                blocking.call(() -> FileChannel.open(spool.file, StandardOpenOption.WRITE)),
                channel -> body.concatMap(buffer -> blocking.run(() -> {
                            try (var readable = buffer.readableByteBuffers()) {
                                while (readable.hasNext()) {
                                    var bytes = readable.next();
                                    spool.scanner.feed(bytes);
                                    spool.reserveRead();
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

    private long store(long couponId, Spool spool) throws IOException {
        spool.scanner.finish();
        if (spool.scanner.bad() > 0) {
            throw new BadLines(spool.scanner.errors(), spool.scanner.bad());
        }
        long generation = gates.nextGeneration(couponId);
        long lines = 0;
        // every line is at most ListScanner.MAX_LINE_BYTES long: the scanner refused the upload otherwise
        try (BufferedReader reader = Files.newBufferedReader(spool.file, StandardCharsets.ISO_8859_1)) {
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

    /** The upload ended, however it ended: its file goes, and the disk it reserved is given back. */
    private void close(Spool spool) {
        try {
            Files.deleteIfExists(spool.file);
        } catch (IOException e) {
            log.warn("the upload's temporary file {} was not removed: {}", spool.file, e.toString());
        } finally {
            spool.end();
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
