package com.flashcoupon.api.web;

import org.springframework.http.server.PathContainer;

/** Which paths are the member endpoints, as routing sees them: shared by the rate limits and the overload guard. */
public final class MemberPaths {

    private MemberPaths() {}

    /**
     * Whether the path is under {@code /api/} as routing sees it: the first non-empty segment decoded and without
     * matrix parameters, so {@code /%61pi/...} or {@code /api;x=1/...}, which routing serves, count too.
     */
    public static boolean isMemberApi(PathContainer path) {
        String first = segment(path, true);
        return first != null && first.equals("api");
    }

    /**
     * Whether the path ends in the segment {@code events}: the live status streams ({@code .../issue-requests/me/events}),
     * which hold their exchange for as long as the member watches.
     */
    public static boolean isEventStream(PathContainer path) {
        String last = segment(path, false);
        return last != null && last.equals("events");
    }

    /**
     * Whether the path is one of a coupon's member endpoints, {@code /api/v1/coupons/{id}} and below, with an id
     * routing accepts (a positive number in plain decimal, {@link CanonicalIds}): their rate limits are charged per coupon, by their own scripts.
     */
    public static boolean isCouponApi(PathContainer path) {
        int index = 0;
        for (PathContainer.Element element : path.elements()) {
            if (element instanceof PathContainer.PathSegment segment
                    && !segment.valueToMatch().isEmpty()) {
                String value = segment.valueToMatch();
                boolean expected = switch (index++) {
                    case 0 -> value.equals("api");
                    case 1 -> value.equals("v1");
                    case 2 -> value.equals("coupons");
                    default -> isPositiveNumber(value);
                };
                if (!expected) {
                    return false;
                }
                if (index == 4) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean isPositiveNumber(String value) {
        return CanonicalIds.parse(value) > 0;
    }

    /** The first or last non-empty segment, decoded and without matrix parameters; null when there is none. */
    private static String segment(PathContainer path, boolean first) {
        String found = null;
        for (PathContainer.Element element : path.elements()) {
            if (element instanceof PathContainer.PathSegment segment
                    && !segment.valueToMatch().isEmpty()) {
                found = segment.valueToMatch();
                if (first) {
                    return found;
                }
            }
        }
        return found;
    }
}
