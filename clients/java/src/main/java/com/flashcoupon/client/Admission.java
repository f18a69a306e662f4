package com.flashcoupon.client;

import com.google.gson.JsonObject;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import okhttp3.Request;
import okhttp3.RequestBody;

/**
 * Asks for a place ({@code POST .../issue-requests}) until the api answers one that decides: a place (202, or 200 for
 * a member who asked before), or a refusal that asking again cannot change. Every other answer of the contract is
 * handled here: 409 {@code NOT_OPEN} before {@code openAt} waits for it (with jitter, measured on the server's clock),
 * 428 fetches a challenge and solves it on the solver thread, 429 and 503 and network errors back off (never sooner
 * than {@code Retry-After}, then full jitter), 401 asks the app for a new token once. Asking again is always safe: the
 * api never admits a member twice.
 */
final class Admission {

    /** The widest spread of a crowd's first ask after {@code openAt}. */
    static final long OPEN_JITTER_MILLIS = 1_000;

    private final Http http;
    private final long couponId;
    private final ClaimListener listener;
    private final Executor solver;
    final CompletableFuture<Status> outcome = new CompletableFuture<>();
    private int attempt;
    private int proofs;
    private boolean refreshed;
    private String proof;

    Admission(Http http, long couponId, ClaimListener listener, Executor solver) {
        this.http = http;
        this.couponId = couponId;
        this.listener = listener;
        this.solver = solver;
    }

    CompletableFuture<Status> start() {
        http.store.put(new StoredClaim(couponId, "CLAIMING", null, null, null, System.currentTimeMillis()));
        ask();
        return outcome;
    }

    private String path() {
        return "/api/v1/coupons/" + couponId + "/issue-requests";
    }

    private void ask() {
        if (outcome.isDone()) {
            return;
        }
        Request.Builder request = http.request(http.url(path())).post(RequestBody.create(new byte[0]));
        if (proof != null) {
            request.header("X-Coupon-Proof", proof);
        }
        http.send(request.build()).whenComplete((answer, error) -> {
            if (error != null) {
                retry(0, error);
            } else {
                answered(answer);
            }
        });
    }

    private void answered(Answer answer) {
        String code = answer.problemCode();
        switch (answer.code) {
            case 200, 202 -> {
                Status status = Status.of(answer.json(), couponId);
                outcome.complete(status);
            }
            case 401 -> {
                if (refreshed) {
                    refuse("UNAUTHORIZED");
                } else {
                    refreshed = true;
                    http.refreshToken();
                    ask();
                }
            }
            case 409 -> {
                if ("NOT_OPEN".equals(code)) {
                    whenOpen();
                } else {
                    refuse(code.isEmpty() ? "CONFLICT" : code);
                }
            }
            case 428 -> challenge();
            case 403 -> {
                if ("PROOF_INVALID".equals(code) && proofs < 2) {
                    challenge();
                } else {
                    refuse(code.isEmpty() ? "FORBIDDEN" : code);
                }
            }
            case 408, 429, 500, 502, 503, 504 -> retry(answer.retryAfterMillis(), null);
            default -> refuse(code.isEmpty() ? "HTTP_" + answer.code : code);
        }
    }

    private void refuse(String reason) {
        outcome.complete(new Status(couponId, "FAILED", null, null, null, reason, null));
    }

    private void retry(long retryAfterMillis, Throwable error) {
        if (attempt >= http.maxAttempts) {
            refuse("GAVE_UP");
            return;
        }
        long delay = http.backoffMillis(attempt++, retryAfterMillis);
        listener.onUpdate(new ClaimUpdate(
                couponId,
                ClaimUpdate.Phase.RETRYING,
                null,
                null,
                null,
                Instant.now().plusMillis(delay)));
        http.later(delay, this::ask);
    }

    /**
     * 409 {@code NOT_OPEN}: reads the event. Before {@code openAt} (by the server's clock), asks again at {@code
     * openAt} plus a random part of a second, so that the members who waited do not all ask in the same millisecond;
     * closed (or past its window), the claim fails {@code NOT_OPEN}.
     */
    private void whenOpen() {
        http.send(http.request(http.url("/api/v1/coupons/" + couponId)).build()).whenComplete((answer, error) -> {
            if (error != null || answer.code == 429 || answer.code >= 500) {
                long after = error != null ? 0 : answer.retryAfterMillis();
                if (attempt >= http.maxAttempts) {
                    refuse("GAVE_UP");
                    return;
                }
                http.later(http.backoffMillis(attempt++, after), this::whenOpen);
                return;
            }
            if (answer.code != 200) {
                answered(answer);
                return;
            }
            JsonObject coupon = answer.json();
            String status = Json.text(coupon, "status", "");
            Instant openAt = Json.instant(coupon, "openAt");
            Instant now = answer.serverNow();
            if ("SCHEDULED".equals(status) && openAt != null) {
                long wait = Math.max(0, openAt.toEpochMilli() - now.toEpochMilli()) + Http.random(OPEN_JITTER_MILLIS);
                listener.onUpdate(new ClaimUpdate(
                        couponId,
                        ClaimUpdate.Phase.NOT_OPEN_YET,
                        null,
                        null,
                        null,
                        Instant.now().plusMillis(wait)));
                http.later(wait, this::ask);
            } else if ("OPEN".equals(status) && attempt < 3) {
                // opened between the two answers (or the clocks disagree): ask again, a moment later
                retry(0, null);
            } else {
                refuse("SOLD_OUT".equals(status) ? "SOLD_OUT" : "NOT_OPEN");
            }
        });
    }

    /** 428, or a proof refused: a new challenge, solved on the solver thread, then the admission again with it. */
    private void challenge() {
        proofs++;
        listener.onUpdate(new ClaimUpdate(couponId, ClaimUpdate.Phase.SOLVING_PROOF, null, null, null, null));
        http.send(http.request(http.url("/api/v1/coupons/" + couponId + "/challenge"))
                        .build())
                .whenComplete((answer, error) -> {
                    if (error != null || answer.code == 429 || answer.code >= 500) {
                        retryChallenge(error != null ? 0 : answer.retryAfterMillis());
                        return;
                    }
                    if (answer.code != 200) {
                        answered(answer);
                        return;
                    }
                    String text = Json.text(answer.json(), "challenge", null);
                    Long bits = Json.number(answer.json(), "difficultyBits");
                    if (text == null || bits == null) {
                        refuse("PROOF_INVALID");
                        return;
                    }
                    String algorithm = Json.text(answer.json(), "algorithm", "sha256");
                    JsonObject argon2 = Json.object(answer.json(), "argon2");
                    Long memoryKib = argon2 == null ? null : Json.number(argon2, "memoryKiB");
                    Long iterations = argon2 == null ? null : Json.number(argon2, "iterations");
                    boolean argon2id = "argon2id".equals(algorithm);
                    if (!argon2id && !"sha256".equals(algorithm)
                            || argon2id && (memoryKib == null || iterations == null)) {
                        refuse("PROOF_INVALID"); // a rule this client does not know
                        return;
                    }
                    CompletableFuture.supplyAsync(
                                    () -> argon2id
                                            ? ProofOfWork.solveArgon2id(
                                                    text, bits.intValue(), memoryKib.intValue(), iterations.intValue())
                                            : ProofOfWork.solve(text, bits.intValue()),
                                    solver)
                            .whenComplete((solved, failure) -> {
                                if (failure != null) {
                                    outcome.completeExceptionally(failure);
                                    return;
                                }
                                proof = solved;
                                ask();
                            });
                });
    }

    private void retryChallenge(long retryAfterMillis) {
        if (attempt >= http.maxAttempts) {
            refuse("GAVE_UP");
            return;
        }
        proofs--;
        http.later(http.backoffMillis(attempt++, retryAfterMillis), this::challenge);
    }
}
