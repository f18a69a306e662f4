import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Mints an HS256 JWT for local runs, with nothing but the JDK (run with the source launcher):
 *
 * <pre>
 * COUPON_JWT_SECRET=... java bin/lib/MintToken.java operator-1 coupon-admin   # an operator
 * COUPON_JWT_SECRET=... java bin/lib/MintToken.java member-1                  # a member (no roles)
 * </pre>
 *
 * Arguments: the subject (the member id), then any roles. Claims: {@code sub}, {@code roles} (a JSON array, maybe
 * empty), {@code iat}, {@code exp} (12 hours ahead; {@code COUPON_JWT_TTL_MINUTES} changes it). Key: the UTF-8 bytes
 * of {@code COUPON_JWT_SECRET} (at least 32 bytes, as the api demands). Prints the compact JWS
 * {@code header.payload.signature}, each part base64url without padding.
 */
public class MintToken {

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args[0].isBlank()) {
            fail("usage: java bin/lib/MintToken.java SUBJECT [ROLE...]   (key: COUPON_JWT_SECRET)");
        }
        String subject = args[0];
        if (!subject.matches("[A-Za-z0-9._:-]{1,64}")) {
            fail("the subject must be 1 to 64 characters of A-Za-z0-9._:- (docs/http-api.md), not: " + subject);
        }
        String secret = System.getenv("COUPON_JWT_SECRET");
        if (secret == null || secret.getBytes(StandardCharsets.UTF_8).length < 32) {
            fail("COUPON_JWT_SECRET must be set, at least 32 bytes (UTF-8)");
        }
        String ttl = System.getenv().getOrDefault("COUPON_JWT_TTL_MINUTES", "720");
        Instant now = Instant.now();
        Instant expires = now.plus(Duration.ofMinutes(Long.parseLong(ttl)));

        String roles = Arrays.stream(args, 1, args.length)
                .map(MintToken::jsonString)
                .collect(Collectors.joining(",", "[", "]"));
        String header = "{\"alg\":\"HS256\",\"typ\":\"JWT\"}";
        String payload = "{\"sub\":" + jsonString(subject) + ",\"roles\":" + roles + ",\"iat\":"
                + now.getEpochSecond() + ",\"exp\":" + expires.getEpochSecond() + "}";

        String signingInput = base64Url(header.getBytes(StandardCharsets.UTF_8)) + "."
                + base64Url(payload.getBytes(StandardCharsets.UTF_8));
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        byte[] signature = mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII));
        System.out.println(signingInput + "." + base64Url(signature));
    }

    private static String base64Url(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static String jsonString(String value) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    private static void fail(String message) {
        System.err.println(message);
        System.exit(2);
    }
}
