package com.flashcoupon.api.web;

import java.util.ArrayList;
import java.util.List;
import org.springframework.http.server.PathContainer;

/**
 * Which paths are the member endpoints (and the internal ones), as routing sees them: shared by the rate limits and the
 * overload guard.
 */
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

    /** Whether the path is under {@code /internal/} as routing sees it (as {@link #isMemberApi} reads it). */
    public static boolean isInternalApi(PathContainer path) {
        String first = segment(path, true);
        return first != null && first.equals("internal");
    }

    /**
     * Whether the path is the operators', under {@code /admin} (the API and the console), as routing sees it (as
     * {@link #isMemberApi} reads it).
     */
    public static boolean isAdmin(PathContainer path) {
        String first = segment(path, true);
        return first != null && first.equals("admin");
    }

    /**
     * Whether the path is one of the token-free public records, under {@code /public/} or {@code /.well-known/}, as
     * routing sees it (as {@link #isMemberApi} reads it): charged to the address's allowance.
     */
    public static boolean isPublicRecord(PathContainer path) {
        String first = segment(path, true);
        return first != null && (first.equals("public") || first.equals(".well-known"));
    }

    /** Whether the path is under {@code /actuator}, as routing sees it. */
    public static boolean isActuator(PathContainer path) {
        String first = segment(path, true);
        return first != null && first.equals("actuator");
    }

    /**
     * Whether the path is a live status stream, {@code /api/v1/coupons/{id}/issue-requests/me/events} or the stream of
     * several coupons, {@code /api/v1/me/events}, which hold their exchange for as long as the member watches. Exactly
     * those routes: another path that merely ends in {@code events} (a 404) is an ordinary request.
     */
    public static boolean isEventStream(PathContainer path) {
        return couponRoute(path) == ROUTE.length || isMemberEventStream(path);
    }

    /** Whether the path is exactly {@code /api/v1/me/events}, as routing sees it. */
    private static boolean isMemberEventStream(PathContainer path) {
        String[] expected = {"api", "v1", "me", "events"};
        int index = 0;
        for (PathContainer.Element element : path.elements()) {
            if (element instanceof PathContainer.PathSegment segment
                    && !segment.valueToMatch().isEmpty()) {
                if (index >= expected.length || !segment.valueToMatch().equals(expected[index])) {
                    return false;
                }
                index++;
            }
        }
        return index == expected.length;
    }

    /**
     * Whether the path is one of a coupon's member endpoints, {@code /api/v1/coupons/{id}}, {@code .../issue-requests},
     * {@code .../issue-requests/me} or {@code .../issue-requests/me/events}, with an id routing accepts (a positive
     * number in plain decimal, {@link CanonicalIds}): their rate limits are charged per coupon, by their own scripts. Any
     * other path below a coupon is not routed, and is charged like the endpoints without a coupon.
     */
    public static boolean isCouponApi(PathContainer path) {
        return couponRoute(path) >= 0;
    }

    /** The segments of the coupon routes after the id. */
    private static final String[] ROUTE = {"issue-requests", "me", "events"};

    /**
     * How many of {@link #ROUTE}'s segments follow {@code /api/v1/coupons/{id}} when the path is one of the coupon
     * routes; -1 when it is not.
     */
    private static int couponRoute(PathContainer path) {
        int index = 0;
        for (PathContainer.Element element : path.elements()) {
            if (element instanceof PathContainer.PathSegment segment
                    && !segment.valueToMatch().isEmpty()) {
                String value = segment.valueToMatch();
                boolean expected = switch (index) {
                    case 0 -> value.equals("api");
                    case 1 -> value.equals("v1");
                    case 2 -> value.equals("coupons");
                    case 3 -> isPositiveNumber(value);
                    default -> index - 4 < ROUTE.length && value.equals(ROUTE[index - 4]);
                };
                if (!expected) {
                    return -1;
                }
                index++;
            }
        }
        return index >= 4 ? index - 4 : -1;
    }

    private static boolean isPositiveNumber(String value) {
        return CanonicalIds.parse(value) > 0;
    }

    /**
     * Whether the path is the whole OpenAPI document, {@code /v3/api-docs} or {@code /v3/api-docs.yaml}, as routing sees
     * it.
     */
    public static boolean isOpenApiDocument(PathContainer path) {
        List<String> segments = segments(path);
        return segments.size() == 2 && segments.get(0).equals("v3") && DOCUMENTS.contains(segments.get(1));
    }

    /**
     * The part of the OpenAPI document a path asks for, {@code /v3/api-docs/<part>} (a group, or the UI's {@code
     * swagger-config}), as routing sees it; null for any other path.
     */
    public static String openApiPart(PathContainer path) {
        List<String> segments = segments(path);
        return segments.size() == 3 && segments.get(0).equals("v3") && DOCUMENTS.contains(segments.get(1))
                ? segments.get(2)
                : null;
    }

    private static final List<String> DOCUMENTS = List.of("api-docs", "api-docs.yaml");

    /** The non-empty segments, decoded and without matrix parameters. */
    private static List<String> segments(PathContainer path) {
        List<String> segments = new ArrayList<>();
        for (PathContainer.Element element : path.elements()) {
            if (element instanceof PathContainer.PathSegment segment
                    && !segment.valueToMatch().isEmpty()) {
                segments.add(segment.valueToMatch());
            }
        }
        return segments;
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
