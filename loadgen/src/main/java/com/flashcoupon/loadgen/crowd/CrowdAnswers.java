package com.flashcoupon.loadgen.crowd;

import com.flashcoupon.loadgen.engine.ResponseClassifier;
import java.time.Instant;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Classifies the answers to the crowd's issue requests and remembers, per member, what the api told them: how often
 * 202 (newly admitted, with its {@code position}), 200 (asked before), or no answer at all.
 */
final class CrowdAnswers implements ResponseClassifier {

    static final long NO_POSITION = -1;

    private final CrowdPlan plan;
    private final JsonMapper json;
    private final AtomicIntegerArray accepted;
    private final AtomicIntegerArray askedBefore;
    private final AtomicIntegerArray unanswered;
    private final AtomicIntegerArray unavailable;
    private final AtomicLongArray position;
    private final AtomicReference<Instant> firstAccepted = new AtomicReference<>();
    private final AtomicReference<String> firstUnexpected = new AtomicReference<>();

    private final WaitEstimates estimates;
    private final Queue<Integer> admissions = new ConcurrentLinkedQueue<>();

    CrowdAnswers(CrowdPlan plan, JsonMapper json) {
        this(plan, json, new WaitEstimates(json));
    }

    CrowdAnswers(CrowdPlan plan, JsonMapper json, WaitEstimates estimates) {
        this.estimates = estimates;
        this.plan = plan;
        this.json = json;
        this.accepted = new AtomicIntegerArray(plan.members());
        this.askedBefore = new AtomicIntegerArray(plan.members());
        this.unanswered = new AtomicIntegerArray(plan.members());
        this.unavailable = new AtomicIntegerArray(plan.members());
        this.position = new AtomicLongArray(plan.members());
        for (int m = 0; m < plan.members(); m++) {
            position.set(m, NO_POSITION);
        }
    }

    @Override
    public String classify(int index, int status, String body) {
        return classifyMember(plan.memberAt(index), status, body);
    }

    @Override
    public String classify(int index, int status, String body, long latencyNanos) {
        return classifyMember(plan.memberAt(index), status, body, latencyNanos);
    }

    /** The answer to one of the member's requests, whichever round it was sent in. */
    String classifyMember(int member, int status, String body) {
        return classifyMember(member, status, body, 0);
    }

    /**
     * The same, knowing how long the answer took: the estimate in a 202 was made by the api somewhere between the
     * request's sending and the answer's arrival, and is scored so ({@link WaitEstimates}).
     */
    String classifyMember(int member, int status, String body, long latencyNanos) {
        return switch (status) {
            case 202 -> {
                if (firstAccepted.get() == null) {
                    firstAccepted.compareAndSet(null, Instant.now());
                }
                accepted.incrementAndGet(member);
                position.compareAndSet(member, NO_POSITION, positionIn(body));
                long now = System.currentTimeMillis();
                estimates.told(member, body, true, now - latencyNanos / 1_000_000, now);
                admissions.add(member);
                yield Outcome.ACCEPTED.label;
            }
            case 200 -> {
                askedBefore.incrementAndGet(member);
                yield Outcome.ASKED_BEFORE.label;
            }
            case 409 -> {
                String code = JsonBodies.text(json, body, "code");
                yield switch (code) {
                    case "SOLD_OUT" -> Outcome.SOLD_OUT.label;
                    case "NOT_OPEN" -> Outcome.NOT_OPEN.label;
                    default -> unexpected(status, body, code.isEmpty() ? "409" : "409 " + code);
                };
            }
            case 429 -> Outcome.RATE_LIMITED.label;
            case 503 -> {
                unavailable.incrementAndGet(member);
                yield Outcome.UNAVAILABLE.label;
            }
            default -> unexpected(status, body, "HTTP " + status);
        };
    }

    @Override
    public void failed(int index, Throwable error) {
        unanswered.incrementAndGet(plan.memberAt(index));
    }

    private String unexpected(int status, String body, String label) {
        if (firstUnexpected.get() == null) {
            String excerpt = body.length() > 300 ? body.substring(0, 300) + "…" : body;
            firstUnexpected.compareAndSet(null, status + " " + excerpt);
        }
        return label;
    }

    private long positionIn(String body) {
        JsonNode node = JsonBodies.parse(json, body).path("position");
        return node.isNumber() ? node.longValue() : NO_POSITION;
    }

    /** The first 202, as seen by this client: when issuance could begin. Null if none. */
    /** The members answered 202, in the order the answers arrived (read by the status reads while the crowd runs). */
    Queue<Integer> admissions() {
        return admissions;
    }

    Instant firstAccepted() {
        return firstAccepted.get();
    }

    /** Status and start of the body of the first answer that was none of the expected ones, or null. */
    String firstUnexpected() {
        return firstUnexpected.get();
    }

    int acceptedCount(int member) {
        return accepted.get(member);
    }

    /** Whether the api told this member they hold a place: 202, or 200 ("asked before", same position). */
    boolean holdsPlace(int member) {
        return accepted.get(member) > 0 || askedBefore.get(member) > 0;
    }

    /** Answered 503 at least once and told of no place: the contract tells such a member to ask again. */
    boolean toldUnavailable(int member) {
        return unavailable.get(member) > 0 && !holdsPlace(member);
    }

    boolean unanswered(int member) {
        return unanswered.get(member) > 0;
    }

    /** The position of the member's 202, or {@link #NO_POSITION}. */
    long position(int member) {
        return position.get(member);
    }
}
