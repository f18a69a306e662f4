package com.flashcoupon.loadgen.crowd;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * docs/architecture.md's invariants, checked on what the api answered (members who hold a place: answered 202, or 200 "asked
 * before") against what MySQL holds. Pure functions over sets and counts, shared with pipeline-tests, which asserts
 * them after its end-to-end runs.
 */
public final class Invariants {

    private static final int EXAMPLES = 5;

    private Invariants() {}

    /**
     * (1) Wallet rows never exceed the total quantity, and once issuance is over they are exactly the places given
     * minus the FAILED ones. Members whose request got no answer may hold a place unheard of: up to that many more
     * wallet rows are allowed.
     */
    public static Check walletsWithinStock(
            long walletRows, int totalQuantity, long placesGiven, long failedOfThem, long unansweredMembers) {
        long expected = placesGiven - failedOfThem;
        boolean passed =
                walletRows <= totalQuantity && walletRows >= expected && walletRows <= expected + unansweredMembers;
        String detail = String.format(
                Locale.ROOT,
                "%,d wallet rows, total quantity %,d, expected %,d (%,d admitted - %,d FAILED)",
                walletRows,
                totalQuantity,
                expected,
                placesGiven,
                failedOfThem);
        if (unansweredMembers > 0) {
            detail += String.format(Locale.ROOT, " + up to %,d whose request got no answer", unansweredMembers);
        }
        return new Check("(1) wallet rows <= total quantity", passed, detail);
    }

    /** (2) At most one wallet row per member, and no member was answered 202 twice. */
    public static Check oneWalletPerMember(List<String> membersWithSeveralWallets, long membersAcceptedTwice) {
        boolean passed = membersWithSeveralWallets.isEmpty() && membersAcceptedTwice == 0;
        String detail = String.format(
                Locale.ROOT,
                "%,d members with several wallet rows%s; %,d members answered 202 more than once",
                membersWithSeveralWallets.size(),
                examples(membersWithSeveralWallets),
                membersAcceptedTwice);
        return new Check("(2) no member twice", passed, detail);
    }

    /**
     * (3) Every member given a place ends as exactly one wallet row or as a FAILED result, and each FAILED member is
     * told so by the status endpoint.
     */
    public static Check everyAdmissionEnds(
            Set<String> placed, Collection<String> walletMembers, Set<String> failed, long failedTold) {
        return everyAdmissionEnds(placed, walletMembers, failed, OptionalLong.of(failedTold));
    }

    /** (3) without asking the status endpoint: every member given a place ends as one wallet row or FAILED result. */
    public static Check everyAdmissionEnds(Set<String> placed, Collection<String> walletMembers, Set<String> failed) {
        return everyAdmissionEnds(placed, walletMembers, failed, OptionalLong.empty());
    }

    private static Check everyAdmissionEnds(
            Set<String> placed, Collection<String> walletMembers, Set<String> failed, OptionalLong failedTold) {
        Set<String> wallets = new HashSet<>(walletMembers);
        List<String> missing = placed.stream()
                .filter(m -> !wallets.contains(m) && !failed.contains(m))
                .sorted()
                .toList();
        List<String> both = failed.stream().filter(wallets::contains).sorted().toList();
        long failedPlaced = failed.stream().filter(placed::contains).count();
        boolean told = failedTold.isEmpty() || failedTold.getAsLong() == failedPlaced;
        boolean passed = missing.isEmpty() && both.isEmpty() && told;
        String detail = String.format(
                Locale.ROOT,
                "%,d admitted: %,d without wallet or FAILED result%s; %,d both%s; %,d FAILED",
                placed.size(),
                missing.size(),
                examples(missing),
                both.size(),
                examples(both),
                failedPlaced);
        if (failedTold.isPresent()) {
            detail += String.format(Locale.ROOT, ", %,d of them told FAILED", failedTold.getAsLong());
        }
        return new Check("(3) every admission ends as a wallet or a told FAILED", passed, detail);
    }

    /**
     * (4) No wallet row (nor FAILED result) for a member never given a place. A member whose request got no answer
     * may have been admitted without hearing it: such rows are counted apart and do not fail the check.
     */
    public static Check nothingWithoutAdmission(
            Set<String> placed, Collection<String> walletMembers, Set<String> failed, Set<String> unanswered) {
        List<String> strangers = new ArrayList<>();
        List<String> unknown = new ArrayList<>();
        for (String member : walletMembers) {
            if (!placed.contains(member)) {
                (unanswered.contains(member) ? unknown : strangers).add(member);
            }
        }
        List<String> failedStrangers = failed.stream()
                .filter(m -> !placed.contains(m) && !unanswered.contains(m))
                .sorted()
                .toList();
        strangers.sort(null);
        String detail = String.format(
                Locale.ROOT,
                "%,d wallet rows of members never admitted%s; %,d FAILED results of members never admitted%s",
                strangers.size(),
                examples(strangers),
                failedStrangers.size(),
                examples(failedStrangers));
        if (!unknown.isEmpty()) {
            detail += String.format(
                    Locale.ROOT,
                    "; %,d wallet rows of members whose request got no answer (cannot tell)",
                    unknown.size());
        }
        return new Check("(4) no wallet without admission", strangers.isEmpty() && failedStrangers.isEmpty(), detail);
    }

    /** (5) Issuance follows admission order, up to one drain batch. */
    public static Check issuanceFollowsAdmission(long[] requestSeqsInWalletIdOrder, long batchBound) {
        OrderInversions inversions = OrderInversions.count(requestSeqsInWalletIdOrder, batchBound);
        String detail = String.format(
                Locale.ROOT,
                "%,d of %,d wallet rows issued after one admitted more than %,d later; largest lag %,d",
                inversions.beyondBound(),
                inversions.rows(),
                batchBound,
                inversions.maxLag());
        return new Check("(5) issuance follows admission order", inversions.beyondBound() == 0, detail);
    }

    private static String examples(Collection<String> members) {
        if (members.isEmpty()) {
            return "";
        }
        String shown = members.stream().limit(EXAMPLES).collect(Collectors.joining(", "));
        return " (" + shown + (members.size() > EXAMPLES ? ", …" : "") + ")";
    }
}
