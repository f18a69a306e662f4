package com.flashcoupon.contract;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Who wrote an {@link IssueRequested} record: the api's drainer signs each one with a key it shares with the worker,
 * in the Kafka header {@value #HEADER}, and the worker writes nothing for a record whose signature does not hold (it
 * dead-letters it). Anyone who can publish to {@code coupon.issue.requested} but lacks the key gets no wallet, past
 * neither the queue, the gate nor the draw.
 *
 * <p>The signature is an HMAC-SHA256 of {@link #canonical} under the key, in base64url without padding. A rotation
 * lists several keys, comma-separated: the first signs, every one is accepted (so the workers learn a new key before
 * the apis sign with it, and records signed with the old one still in the topic are accepted until the old one goes).
 *
 * <p>What the signature does not do: it says nothing against replaying a record the drainer did sign (the worker's
 * one wallet per member and coupon makes that a no-op), and it does not hide anything (records are not encrypted).
 */
public final class RecordSignature {

    /** The Kafka header carrying the signature. */
    public static final String HEADER = "fc-sig";

    /** The setting both apps read the key (or keys) from, as an environment variable. */
    public static final String SETTING = "COUPON_RECORD_SIGNING_KEY";

    /**
     * The key of the local profile (bin/up's default, bin/lib/env.sh): public, so refused outside the local profile.
     */
    public static final String LOCAL_KEY = "flash-coupon-local-record-signing-do-not-use-in-production";

    /** The shortest key accepted, in UTF-8 bytes: as many as the HMAC's output. */
    public static final int MIN_KEY_BYTES = 32;

    private static final String ALGORITHM = "HmacSHA256";
    private static final byte[] DOMAIN = "flash-coupon/IssueRequested/v1\0".getBytes(StandardCharsets.UTF_8);
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder B64_DECODER = Base64.getUrlDecoder();

    /** One initialised MAC per key, cloned for each use (a Mac is not thread-safe). */
    private final List<Mac> keys;

    private RecordSignature(List<byte[]> keys) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("at least one key");
        }
        List<Mac> macs = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            try {
                Mac mac = Mac.getInstance(ALGORITHM);
                mac.init(new SecretKeySpec(key, ALGORITHM));
                macs.add(mac);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(ALGORITHM + " is not available", e);
            }
        }
        this.keys = List.copyOf(macs);
    }

    /**
     * The signer and checker of the setting {@value #SETTING}: one key, or several separated by commas during a
     * rotation (the first signs). Every key is at least {@value #MIN_KEY_BYTES} bytes of UTF-8 and contains no comma.
     * Outside the local profile the setting is required and the public {@link #LOCAL_KEY} refused, so that a
     * deployment cannot run with a key anyone can read; the local profile without a setting uses {@link #LOCAL_KEY},
     * which every process of a local run then shares.
     *
     * @throws IllegalStateException naming the setting (never a key) when it does not hold
     */
    public static RecordSignature fromSetting(String configured, boolean localProfile) {
        String setting = configured == null ? "" : configured.strip();
        if (setting.isEmpty()) {
            if (!localProfile) {
                throw new IllegalStateException("Set " + SETTING + " (coupon.record.signing-key, at least "
                        + MIN_KEY_BYTES + " bytes, the same on every api and worker): the api signs each issue"
                        + " request it publishes to Kafka with it, and the worker writes nothing for a record whose"
                        + " signature does not hold. Only the local profile may run without it.");
            }
            setting = LOCAL_KEY;
        }
        List<byte[]> keys = new ArrayList<>();
        String[] parts = setting.split(",", -1);
        for (int i = 0; i < parts.length; i++) {
            byte[] key = parts[i].strip().getBytes(StandardCharsets.UTF_8);
            if (key.length < MIN_KEY_BYTES) {
                throw new IllegalStateException(SETTING + ": key " + (i + 1) + " of " + parts.length + " has "
                        + key.length + " bytes (UTF-8), at least " + MIN_KEY_BYTES + " are needed (several keys are"
                        + " separated by commas). Its value is not shown.");
            }
            if (!localProfile && parts[i].contains(LOCAL_KEY)) {
                throw new IllegalStateException(SETTING + " is, or contains, the public local default; set a key of"
                        + " your own outside the local profile.");
            }
            keys.add(key);
        }
        return new RecordSignature(keys);
    }

    /** A signer with these keys, the first signing (tests, tools). */
    public static RecordSignature of(String... keys) {
        return fromSetting(String.join(",", keys), false);
    }

    /** How many keys are accepted. */
    public int keyCount() {
        return keys.size();
    }

    /**
     * The bytes that are signed, defined once for both apps: a domain prefix, then the coupon id, the sequence and
     * the publication time as 8-byte big-endian numbers, then the member id as a 4-byte big-endian length (-1 for
     * none) followed by its UTF-8 bytes. Lengths are fixed or given, so no two requests share a form.
     */
    public static byte[] canonical(IssueRequested request) {
        byte[] member =
                request.memberId() == null ? new byte[0] : request.memberId().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(DOMAIN.length + 3 * Long.BYTES + Integer.BYTES + member.length)
                .put(DOMAIN)
                .putLong(request.couponId())
                .putLong(request.sequence())
                .putLong(request.publishedAt())
                .putInt(request.memberId() == null ? -1 : member.length)
                .put(member)
                .array();
    }

    /** The header value for this request: the first key's HMAC, base64url without padding, as ASCII bytes. */
    public byte[] sign(IssueRequested request) {
        return B64.encode(mac(keys.get(0), request));
    }

    /**
     * Whether {@code header} (the value of {@value #HEADER}, null when the record has none) is the signature of this
     * request under one of the keys. Compares in constant time.
     */
    public boolean verify(IssueRequested request, byte[] header) {
        if (header == null || header.length == 0) {
            return false;
        }
        byte[] presented;
        try {
            presented = B64_DECODER.decode(header);
        } catch (IllegalArgumentException notBase64) {
            return false;
        }
        boolean valid = false;
        for (Mac key : keys) {
            // every key is tried, whichever matches, so the time says nothing about which one did
            valid |= MessageDigest.isEqual(mac(key, request), presented);
        }
        return valid;
    }

    private static byte[] mac(Mac prototype, IssueRequested request) {
        Mac mac;
        try {
            mac = (Mac) prototype.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(ALGORITHM + " of this JDK cannot be cloned", e);
        }
        return mac.doFinal(canonical(request));
    }

    @Override
    public String toString() {
        return "RecordSignature[" + keys.size() + " key(s)]"; // never the keys
    }
}
