package com.flashcoupon.api.gate;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Stateless proof-of-work challenges (issue 26): {@code v1.<coupon>.<expires, epoch s>.<bits>.<salt>.<mac>}, the MAC an
 * HMAC-SHA256 of the member and the rest under the api's secret, so a challenge is bound to one member and one event
 * and checked without storing it. A proof {@code <challenge>:<nonce>} is accepted when the SHA-256 of its UTF-8
 * bytes starts with at least {@code bits} zero bits. A member admits once (asking again needs no proof), so a proof
 * used again gains nothing; one lent to another member fails its MAC.
 *
 * <p>An {@code ARGON2ID} event (issue 34, N6) asks a memory-hard puzzle instead:
 * {@code a1.<coupon>.<expires>.<bits>.<memoryKiB>.<iterations>.<salt>.<mac>}, and its proof {@code <challenge>:<nonce>}
 * is accepted when the Argon2id (version 0x13, parallelism 1, 32 bytes out) of the proof's UTF-8 bytes, salted with the
 * challenge's UTF-8 bytes, under the memory and iterations the challenge names (signed with it), starts with at least
 * {@code bits} zero bits. SHA-256 zeros cost a GPU or a CPython loop next to nothing; each Argon2id try needs its
 * memory, so a solver's advantage is bounded by its memory bandwidth. The server checks the MAC, the event and the
 * expiry first, then computes one hash: a forged or stale proof costs it an HMAC only.
 */
@Component
public class ProofOfWork {

    private static final Logger log = LoggerFactory.getLogger(ProofOfWork.class);
    private static final String VERSION = "v1";
    private static final String ARGON2_VERSION = "a1";
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    /** The key bin/up's local runs share between their instances (bin/lib/env.sh); refused outside the local profile. */
    static final String LOCAL_SECRET = "flash-coupon-local-human-check-do-not-use-in-production";

    /** Longest nonce accepted (a solver needs a dozen digits). */
    private static final int MAX_NONCE = 64;

    private final byte[] key;
    private final long ttlSeconds;
    private final Clock clock;
    private final int argon2MemoryKib;
    private final int argon2Iterations;

    @Autowired
    ProofOfWork(HumanCheckProperties properties, Clock clock, Environment environment) {
        this(properties, clock, environment.matchesProfiles("local"));
    }

    /**
     * @param localProfile whether the api runs with the local profile: only there may the secret be missing (a key of
     *     this process alone) or the public local one
     */
    ProofOfWork(HumanCheckProperties properties, Clock clock, boolean localProfile) {
        this.clock = clock;
        this.ttlSeconds = Math.max(1, properties.challengeTtl().toSeconds());
        this.key = key(properties.secret(), localProfile);
        this.argon2MemoryKib = properties.argon2MemoryKib();
        this.argon2Iterations = properties.argon2Iterations();
    }

    /**
     * The key challenges are signed with. Every api instance behind one load balancer must have the same one: a member
     * fetches a challenge from one instance and sends the proof to another. So outside the local profile a missing key,
     * or the public local one, stops the api at start (as a missing JWT secret does), rather than an api that refuses
     * most proofs once it runs beside another.
     */
    static byte[] key(String configured, boolean localProfile) {
        byte[] secret = configured.getBytes(StandardCharsets.UTF_8);
        if (secret.length == 0) {
            if (!localProfile) {
                throw new IllegalStateException("Set COUPON_HUMAN_CHECK_SECRET (coupon.human-check.secret, at least 32"
                        + " bytes, the same on every api instance): it signs the proof-of-work challenges, and a"
                        + " challenge fetched from one instance must be accepted by the others. Only the local profile"
                        + " may run without it.");
            }
            secret = new byte[32];
            new SecureRandom().nextBytes(secret);
            log.warn("coupon.human-check.secret is not set: proof-of-work challenges are signed with a key of this"
                    + " process alone; set COUPON_HUMAN_CHECK_SECRET when more than one api instance runs");
        } else if (secret.length < 32) {
            throw new IllegalStateException("COUPON_HUMAN_CHECK_SECRET must be at least 32 bytes (UTF-8); it has "
                    + secret.length + ". Its value is not shown.");
        } else if (configured.contains(LOCAL_SECRET) && !localProfile) {
            throw new IllegalStateException("COUPON_HUMAN_CHECK_SECRET is, or contains, the public local default; set"
                    + " a secret of your own outside the local profile.");
        }
        return secret;
    }

    /** A SHA-256 challenge of {@code bits} for the member and event. */
    public Challenge challenge(long couponId, String member, int bits) {
        return challenge(couponId, member, bits, false);
    }

    /** A challenge of {@code bits} for the member and event: Argon2id under the api's parameters, or SHA-256. */
    public Challenge challenge(long couponId, String member, int bits, boolean argon2id) {
        long expires = clock.instant().getEpochSecond() + ttlSeconds;
        byte[] salt = new byte[12];
        ThreadLocalRandom.current().nextBytes(salt); // unique, not secret: the MAC is what cannot be forged
        String body = argon2id
                ? ARGON2_VERSION + "." + couponId + "." + expires + "." + bits + "." + argon2MemoryKib + "."
                        + argon2Iterations + "." + B64.encodeToString(salt)
                : VERSION + "." + couponId + "." + expires + "." + bits + "." + B64.encodeToString(salt);
        return new Challenge(
                body + "." + mac(member, body),
                bits,
                Instant.ofEpochSecond(expires),
                argon2id ? "argon2id" : "sha256",
                argon2id ? new Argon2Parameters(argon2MemoryKib, argon2Iterations, 1) : null);
    }

    /**
     * What {@code GET /api/v1/coupons/{id}/challenge} answers: {@code algorithm} is {@code sha256} or {@code argon2id},
     * {@code argon2} the puzzle's parameters for the latter (absent for the former).
     */
    public record Challenge(
            String challenge,
            int difficultyBits,
            Instant expiresAt,
            String algorithm,
            @JsonInclude(JsonInclude.Include.NON_NULL) Argon2Parameters argon2) {}

    /** Argon2id's memory (KiB), passes and lanes, as a challenge names them. */
    public record Argon2Parameters(int memoryKiB, int iterations, int parallelism) {}

    /**
     * gate.lua's reading of an {@code X-Coupon-Proof}: {@code P<bits>} for a valid proof, {@code X} for one of ours
     * that fails (forged, expired, another member's or event's, too few zero bits), {@code ?} for anything that is not
     * one of our challenges (a siteverify token, which the api checks only for an event that asks for one).
     */
    public String read(long couponId, String member, String proof) {
        int colon = proof.indexOf(':');
        String challenge = colon < 0 ? proof : proof.substring(0, colon);
        String[] parts = challenge.split("\\.", -1);
        String nonce = colon < 0 ? "" : proof.substring(colon + 1);
        boolean argon2id = parts.length == 8 && ARGON2_VERSION.equals(parts[0]);
        if (!argon2id && (parts.length != 6 || !VERSION.equals(parts[0]))) {
            return "?";
        }
        try {
            int bits = Integer.parseInt(parts[3]);
            // the cheap checks first, the same for both puzzles: only a signed, current proof of this event costs the
            // server its hash (one SHA-256, or one Argon2id: A<bits>, which gate.lua accepts for an ARGON2ID event)
            if (!signedAndCurrent(couponId, member, challenge, parts, nonce)) {
                return "X";
            }
            if (argon2id) {
                int memoryKib = Integer.parseInt(parts[4]);
                int iterations = Integer.parseInt(parts[5]);
                return argon2ZeroBits(proof, challenge, memoryKib, iterations) >= bits ? "A" + bits : "X";
            }
            return leadingZeroBits(proof) >= bits ? "P" + bits : "X";
        } catch (NumberFormatException malformed) {
            return "X";
        }
    }

    /**
     * Whether a challenge is ours for this member (its MAC, the last part), for this event, not expired, and answered
     * with a nonce of an allowed length.
     */
    private boolean signedAndCurrent(long couponId, String member, String challenge, String[] parts, String nonce) {
        String body = challenge.substring(0, challenge.lastIndexOf('.'));
        boolean signed = MessageDigest.isEqual(
                mac(member, body).getBytes(StandardCharsets.US_ASCII),
                parts[parts.length - 1].getBytes(StandardCharsets.US_ASCII));
        return signed
                && Long.parseLong(parts[1]) == couponId
                && Long.parseLong(parts[2]) > clock.instant().getEpochSecond()
                && !nonce.isEmpty()
                && nonce.length() <= MAX_NONCE;
    }

    /**
     * The leading zero bits of the Argon2id hash of the proof's UTF-8 bytes, salted with the challenge's: the rule
     * docs/http-api.md gives clients.
     */
    public static int argon2ZeroBits(String proof, String challenge, int memoryKib, int iterations) {
        Argon2BytesGenerator argon2 = new Argon2BytesGenerator();
        argon2.init(new org.bouncycastle.crypto.params.Argon2Parameters.Builder(
                        org.bouncycastle.crypto.params.Argon2Parameters.ARGON2_id)
                .withVersion(org.bouncycastle.crypto.params.Argon2Parameters.ARGON2_VERSION_13)
                .withMemoryAsKB(memoryKib)
                .withIterations(iterations)
                .withParallelism(1)
                .withSalt(challenge.getBytes(StandardCharsets.UTF_8))
                .build());
        byte[] hash = new byte[32];
        argon2.generateBytes(proof.getBytes(StandardCharsets.UTF_8), hash);
        return zeroBits(hash);
    }

    /** Finds a nonce for an Argon2id challenge: what a client does (tests, the loadgen). */
    public static String solveArgon2(String challenge, int bits, int memoryKib, int iterations) {
        for (long nonce = 0; ; nonce++) {
            String proof = challenge + ":" + nonce;
            if (argon2ZeroBits(proof, challenge, memoryKib, iterations) >= bits) {
                return proof;
            }
        }
    }

    /** The leading zero bits of the SHA-256 of the text's UTF-8 bytes. */
    public static int leadingZeroBits(String text) {
        return zeroBits(sha256(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static int zeroBits(byte[] digest) {
        int zeros = 0;
        for (byte b : digest) {
            if (b == 0) {
                zeros += 8;
                continue;
            }
            return zeros + Integer.numberOfLeadingZeros(b & 0xff) - 24;
        }
        return zeros;
    }

    /** Finds a nonce for the challenge: what a client does (the loadgen, tests, the README's figures). */
    public static String solve(String challenge, int bits) {
        for (long nonce = 0; ; nonce++) {
            String proof = challenge + ":" + nonce;
            if (leadingZeroBits(proof) >= bits) {
                return proof;
            }
        }
    }

    private String mac(String member, String body) {
        try {
            Mac hmac = Mac.getInstance("HmacSHA256");
            hmac.init(new SecretKeySpec(key, "HmacSHA256"));
            hmac.update(member.getBytes(StandardCharsets.UTF_8));
            hmac.update((byte) '\n');
            return B64.encodeToString(hmac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (GeneralSecurityException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
