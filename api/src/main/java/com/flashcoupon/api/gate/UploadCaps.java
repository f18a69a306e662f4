package com.flashcoupon.api.gate;

import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.api.web.ErrorCode;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Component;

/**
 * The caps of the eligibility upload (docs/operations.md, settings), and the temporary disk its spooled lists use on
 * this instance: every upload reserves its bytes before writing them (a declared length all at once, a chunked body
 * as it arrives) and gives them back when it ends, however it ends.
 */
@Component
class UploadCaps {

    private final EligibilityUploadProperties settings;
    private final AtomicLong reserved = new AtomicLong();

    UploadCaps(EligibilityUploadProperties settings, MeterRegistry meters) {
        this.settings = settings;
        Gauge.builder("coupon.eligibility.upload.temp.bytes", reserved, AtomicLong::get)
                .description("Temporary disk reserved by the eligibility uploads in progress on this instance")
                .baseUnit("bytes")
                .register(meters);
    }

    ListScanner scanner() {
        return new ListScanner(settings.maxBytes().toBytes(), settings.maxLines());
    }

    /** A declared body over the byte cap: refused before a byte of it is read. */
    void checkDeclared(long contentLength) {
        if (contentLength > settings.maxBytes().toBytes()) {
            throw ApiException.of(
                            ErrorCode.PAYLOAD_TOO_LARGE,
                            "The eligibility list is over "
                                    + settings.maxBytes().toBytes()
                                    + " bytes (COUPON_ELIGIBILITY_MAX_BYTES); nothing was replaced.")
                    .with("cap", "COUPON_ELIGIBILITY_MAX_BYTES")
                    .with("limit", settings.maxBytes().toBytes());
        }
    }

    /**
     * Reserves {@code bytes} of temporary disk.
     *
     * @throws ApiException 413 PAYLOAD_TOO_LARGE naming {@code COUPON_ELIGIBILITY_MAX_TEMP_BYTES} when the uploads in
     *     progress would use more; nothing is reserved then
     */
    void reserve(long bytes) {
        long limit = settings.maxTempBytes().toBytes();
        long now;
        do {
            now = reserved.get();
            if (now + bytes > limit) {
                throw ApiException.of(
                                ErrorCode.PAYLOAD_TOO_LARGE,
                                "The eligibility uploads in progress on this instance would use more than " + limit
                                        + " bytes of temporary disk (COUPON_ELIGIBILITY_MAX_TEMP_BYTES); nothing was"
                                        + " replaced. Send it again once they are done.")
                        .with("cap", "COUPON_ELIGIBILITY_MAX_TEMP_BYTES")
                        .with("limit", limit);
            }
        } while (!reserved.compareAndSet(now, now + bytes));
    }

    void release(long bytes) {
        reserved.addAndGet(-bytes);
    }
}
