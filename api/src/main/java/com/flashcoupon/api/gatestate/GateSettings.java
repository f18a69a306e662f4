package com.flashcoupon.api.gatestate;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Who an event is for and how a member shows they are a person (issue 26): an eligibility list and/or claim rules,
 * enforced or only counted, and a human check. {@link #NONE} for an event without any: it admits every member.
 *
 * @param list the member must be on the event's uploaded list
 * @param claims each named claim of the member's token must hold one of its values (all of them must hold)
 * @param mode {@link Mode#COUNT_ONLY} admits as without rules and counts, per rule, who would have been refused
 * @param humanCheck {@code null} for none
 * @param difficultyBits the proof of work's leading zero bits (PROOF_OF_WORK and ARGON2ID only)
 */
public record GateSettings(
        boolean list, Map<String, List<String>> claims, Mode mode, HumanCheck humanCheck, int difficultyBits) {

    public static final GateSettings NONE = new GateSettings(false, Map.of(), Mode.ENFORCE, null, 0);

    public GateSettings {
        claims = claims == null ? Map.of() : new TreeMap<>(claims);
        mode = mode == null ? Mode.ENFORCE : mode;
    }

    public enum Mode {
        ENFORCE,
        COUNT_ONLY
    }

    public enum HumanCheck {
        PROOF_OF_WORK,
        SITEVERIFY,
        /** A memory-hard proof of work (issue 34, N6): Argon2id tries, {@code difficultyBits} of leading zeros. */
        ARGON2ID
    }

    public boolean isNone() {
        return !list && claims.isEmpty() && humanCheck == null;
    }

    /**
     * What mirror.lua takes as ARGV[14] and writes into the meta for gate.lua: elig, eligMode, eligN, human, bits,
     * then the claim rules (a line per claim: its name and values, tab-separated), separated by {@code '\r'}.
     * Names and values never hold control characters (validated when set).
     */
    public String mirrorArg(long listCount) {
        StringBuilder rules = new StringBuilder();
        claims.forEach((name, values) -> {
            rules.append(name);
            values.forEach(value -> rules.append('\t').append(value));
            rules.append('\n');
        });
        String human = humanCheck == null
                ? ""
                : switch (humanCheck) {
                    case PROOF_OF_WORK -> "POW";
                    case ARGON2ID -> "A2";
                    case SITEVERIFY -> "SV";
                };
        return (list ? "1" : "0")
                + '\r'
                + (mode == Mode.COUNT_ONLY ? "C" : "E")
                + '\r'
                + listCount
                + '\r'
                + human
                + '\r'
                + difficultyBits
                + '\r'
                + rules;
    }
}
