package com.flashcoupon.api.gate;

import com.flashcoupon.api.gatestate.GateSettings;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * An event's gate as an operator sets it (issue 26), at creation ({@code POST /admin/v1/coupons}) or until the event
 * opens ({@code PUT /admin/v1/coupons/{id}/eligibility}). Every part is optional: none admits every member.
 *
 * @param eligibility who the event is for
 * @param eligibilityMode {@code ENFORCE} (the default) or {@code COUNT_ONLY}
 * @param humanCheck the check of a person behind the admission
 */
public record GateRequest(
        @Valid Eligibility eligibility,
        GateSettings.Mode eligibilityMode,
        @Valid HumanCheck humanCheck) {

    private static final Pattern CLAIM_NAME = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");

    /**
     * @param list the member must be on the list uploaded with {@code PUT .../eligible-members}
     * @param claims claim name to allowed values: the member's token must carry each named claim with one of them
     */
    public record Eligibility(
            Boolean list, @Size(max = 10) Map<String, @NotNull @Size(min = 1, max = 50) List<String>> claims) {

        @AssertTrue(
                message = "claim names are 1 to 64 of A-Za-z0-9_.:-; values 1 to 100 characters without control"
                        + " characters")
        boolean isClaims() {
            return claims == null
                    || claims.entrySet().stream()
                            .allMatch(claim ->
                                    CLAIM_NAME.matcher(claim.getKey()).matches()
                                            && claim.getValue() != null
                                            && claim.getValue().stream()
                                                    .allMatch(value -> value != null
                                                            && !value.isEmpty()
                                                            && value.length() <= 100
                                                            && GateClaims.plain(value)));
        }
    }

    /**
     * @param type {@code PROOF_OF_WORK}, {@code ARGON2ID} or {@code SITEVERIFY}
     * @param difficultyBits the proof of work's leading zero bits; the api's default (of that kind) when absent
     */
    public record HumanCheck(
            @NotNull GateSettings.HumanCheck type,
            @Min(1) @Max(32) Integer difficultyBits) {

        @AssertTrue(message = "difficultyBits is for PROOF_OF_WORK and ARGON2ID only")
        boolean isDifficultyBits() {
            return difficultyBits == null || type != GateSettings.HumanCheck.SITEVERIFY;
        }

        @AssertTrue(message = "difficultyBits is at most 16 for ARGON2ID (each try is a memory-hard hash)")
        boolean isArgon2Bits() {
            return difficultyBits == null || type != GateSettings.HumanCheck.ARGON2ID || difficultyBits <= 16;
        }
    }

    /** The settings this asks for; {@code defaultBits} when a proof of work names no difficulty. */
    public GateSettings settings(int defaultBits) {
        return settings(defaultBits, defaultBits);
    }

    /** The same, {@code defaultArgon2Bits} when an ARGON2ID check names no difficulty. */
    public GateSettings settings(int defaultBits, int defaultArgon2Bits) {
        boolean list = eligibility != null && Boolean.TRUE.equals(eligibility.list());
        Map<String, List<String>> claims =
                eligibility == null || eligibility.claims() == null ? Map.of() : eligibility.claims();
        GateSettings.HumanCheck check = humanCheck == null ? null : humanCheck.type();
        int bits = check == GateSettings.HumanCheck.PROOF_OF_WORK
                ? humanCheck.difficultyBits() == null ? defaultBits : humanCheck.difficultyBits()
                : check == GateSettings.HumanCheck.ARGON2ID
                        ? humanCheck.difficultyBits() == null ? defaultArgon2Bits : humanCheck.difficultyBits()
                        : 0;
        return new GateSettings(list, claims, eligibilityMode, check, bits);
    }

    /** Whether anything is asked for (an event without a gate gets no row). */
    public boolean isEmpty() {
        return settings(0).isNone() && eligibilityMode == null;
    }
}
