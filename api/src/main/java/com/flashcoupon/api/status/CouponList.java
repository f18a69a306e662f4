package com.flashcoupon.api.status;

import com.flashcoupon.api.web.CanonicalIds;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The {@code coupons} parameter of {@code GET /api/v1/me/events}: ids in plain decimal, comma-separated. */
final class CouponList {

    private CouponList() {}

    /**
     * The distinct ids, in the order given (one named twice is followed once); refused with a message for people when
     * missing, empty, not plain decimal positive ids, or more than {@code max} distinct ids.
     */
    static List<Long> parse(String coupons, int max) {
        if (coupons == null || coupons.isEmpty()) {
            throw new IllegalArgumentException(
                    "coupons is required: the ids of the coupons to follow, comma-separated.");
        }
        Set<Long> ids = new LinkedHashSet<>();
        for (String part : coupons.split(",", -1)) {
            long id = CanonicalIds.parse(part);
            if (id <= 0) {
                throw new IllegalArgumentException(
                        "coupons must be positive ids in plain decimal, comma-separated, such as 42,43.");
            }
            ids.add(id);
            if (ids.size() > max) {
                throw new IllegalArgumentException("coupons names more than " + max + " coupons.");
            }
        }
        return new ArrayList<>(ids);
    }
}
