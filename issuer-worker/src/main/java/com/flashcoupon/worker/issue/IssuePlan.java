package com.flashcoupon.worker.issue;

import com.flashcoupon.contract.IssueRequested;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Who of one coupon's new requests gets a wallet and who is told SOLD_OUT: the first {@code remainingStock} in
 * admission order. Plain Java: no Spring, unit-tested without servers.
 *
 * @param toIssue requests to write as wallets, in sequence order
 * @param soldOut requests beyond the stock, in sequence order
 */
record IssuePlan(List<IssueRequested> toIssue, List<IssueRequested> soldOut) {

    private static final Comparator<IssueRequested> ADMISSION_ORDER =
            Comparator.comparingLong(IssueRequested::sequence).thenComparing(IssueRequested::memberId);

    /**
     * Groups requests by coupon (ascending ids, so that two workers lock coupons in one order), each group in
     * sequence order with one request per member (the earliest; a re-published copy adds nothing).
     */
    static SortedMap<Long, List<IssueRequested>> byCoupon(Collection<IssueRequested> requests) {
        SortedMap<Long, Map<String, IssueRequested>> groups = new TreeMap<>();
        requests.stream()
                .sorted(ADMISSION_ORDER)
                .forEach(request -> groups.computeIfAbsent(request.couponId(), id -> new LinkedHashMap<>())
                        .putIfAbsent(request.memberId(), request));
        SortedMap<Long, List<IssueRequested>> result = new TreeMap<>();
        groups.forEach((couponId, members) -> result.put(couponId, List.copyOf(members.values())));
        return result;
    }

    /**
     * @param requests one coupon's requests in sequence order, one per member
     * @param decided members that already have a wallet or a failure (a replay): they are neither issued nor failed
     * @param remainingStock {@code total_quantity - issued_count} of the locked coupon row
     */
    static IssuePlan of(List<IssueRequested> requests, Set<String> decided, int remainingStock) {
        List<IssueRequested> toIssue = new ArrayList<>();
        List<IssueRequested> soldOut = new ArrayList<>();
        for (IssueRequested request : requests) {
            if (decided.contains(request.memberId())) {
                continue;
            }
            (toIssue.size() < remainingStock ? toIssue : soldOut).add(request);
        }
        return new IssuePlan(List.copyOf(toIssue), List.copyOf(soldOut));
    }
}
