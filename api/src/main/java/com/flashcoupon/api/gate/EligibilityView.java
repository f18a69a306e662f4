package com.flashcoupon.api.gate;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.flashcoupon.api.gatestate.GateRepository;
import com.flashcoupon.api.gatestate.GateSettings;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /admin/v1/coupons/{id}/eligibility}: an event's gate and what it did.
 *
 * @param listCount members on the uploaded list
 * @param refused requests refused, by rule ({@code list}, {@code claims}, {@code proof}: required or invalid)
 * @param wouldRefuse in COUNT_ONLY mode, the distinct members each rule would have refused (estimated within 1%)
 */
record EligibilityView(
        Eligibility eligibility,
        GateSettings.Mode eligibilityMode,
        @JsonInclude(JsonInclude.Include.NON_NULL) HumanCheck humanCheck,
        long listCount,
        Map<String, Long> refused,
        Map<String, Long> wouldRefuse) {

    record Eligibility(boolean list, Map<String, List<String>> claims) {}

    record HumanCheck(
            GateSettings.HumanCheck type,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer difficultyBits) {}

    static EligibilityView of(GateRepository.Stored stored, Map<String, Long> refused, Map<String, Long> would) {
        GateSettings s = stored.settings();
        HumanCheck check = s.humanCheck() == null
                ? null
                : new HumanCheck(
                        s.humanCheck(),
                        s.humanCheck() == GateSettings.HumanCheck.PROOF_OF_WORK
                                        || s.humanCheck() == GateSettings.HumanCheck.ARGON2ID
                                ? s.difficultyBits()
                                : null);
        return new EligibilityView(
                new Eligibility(s.list(), s.claims()), s.mode(), check, stored.listCount(), refused, would);
    }
}
