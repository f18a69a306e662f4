package com.flashcoupon.loadgen.crowd;

import com.flashcoupon.loadgen.engine.LoadRunner;
import java.util.LinkedHashMap;
import java.util.Map;

/** What an issue request was answered, as counted in the summary. Any other status counts as {@code "HTTP <status>"}. */
enum Outcome {
    ACCEPTED("202"),
    ASKED_BEFORE("200"),
    SOLD_OUT("409 SOLD_OUT"),
    NOT_OPEN("409 NOT_OPEN"),
    RATE_LIMITED("429"),
    UNAVAILABLE("503"),
    CONNECTION_ERROR(LoadRunner.CONNECTION_ERROR);

    final String label;

    Outcome(String label) {
        this.label = label;
    }

    /** Answers that tell where a member stands: 202, 200 and 409; what "admissions per second" counts. */
    boolean decided() {
        return this == ACCEPTED || this == ASKED_BEFORE || this == SOLD_OUT || this == NOT_OPEN;
    }

    /** Every outcome in the order above (zeros included), then any other label that was counted. */
    static Map<String, Long> ordered(Map<String, Long> counts) {
        Map<String, Long> ordered = new LinkedHashMap<>();
        for (Outcome outcome : values()) {
            ordered.put(outcome.label, counts.getOrDefault(outcome.label, 0L));
        }
        counts.forEach(ordered::putIfAbsent);
        return ordered;
    }
}
