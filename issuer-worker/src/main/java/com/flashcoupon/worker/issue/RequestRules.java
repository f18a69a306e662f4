package com.flashcoupon.worker.issue;

import com.flashcoupon.contract.IssueRequested;
import java.util.Optional;
import java.util.regex.Pattern;

/** What makes an admitted request writable. Plain Java: no Spring, unit-tested without servers. */
final class RequestRules {

    /** The api's rule for a member id (the JWT {@code sub}); it also fits {@code member_id VARCHAR(64)}. */
    private static final Pattern MEMBER_ID = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

    private RequestRules() {}

    /** Why this request can never be written, or empty when it can. */
    static Optional<String> problem(IssueRequested request) {
        if (request.couponId() < 1) {
            return Optional.of("couponId must be at least 1, was " + request.couponId());
        }
        if (!validMember(request.memberId())) {
            return Optional.of("memberId must be 1 to 64 characters of A-Za-z0-9._:-");
        }
        if (request.sequence() < 1) {
            return Optional.of("sequence must be at least 1, was " + request.sequence());
        }
        return Optional.empty();
    }

    /** True when a failure can still be recorded for this request: its coupon and member are usable as keys. */
    static boolean readable(IssueRequested request) {
        return request.couponId() >= 1 && validMember(request.memberId());
    }

    private static boolean validMember(String memberId) {
        return memberId != null && MEMBER_ID.matcher(memberId).matches();
    }
}
