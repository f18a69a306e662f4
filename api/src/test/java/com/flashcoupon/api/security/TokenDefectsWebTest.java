package com.flashcoupon.api.security;

import static com.flashcoupon.api.support.ProblemAssert.expectProblem;

import com.flashcoupon.api.support.EchoController;
import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.api.support.WebSliceBase;
import com.flashcoupon.api.support.WebSliceTest;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.context.annotation.Import;

/**
 * Every token defect of the issue gets a 401 problem, on a member and on an admin endpoint, from the api's real security
 * configuration (the slice: nothing behind it is needed to refuse a token).
 */
@WebSliceTest
@Import(EchoController.class)
class TokenDefectsWebTest extends WebSliceBase {

    private static final Date LATER = Date.from(Instant.now().plusSeconds(3600));

    static Stream<Arguments> defects() throws Exception {
        var valid = new JWTClaimsSet.Builder()
                .subject("m-1")
                .claim("roles", List.of("coupon-admin"))
                .expirationTime(LATER)
                .build();
        String none = new PlainJWT(valid).serialize();
        var hs512 = new SignedJWT(new JWSHeader(JWSAlgorithm.HS512), valid);
        hs512.sign(new MACSigner((Tokens.SECRET + Tokens.SECRET).getBytes(StandardCharsets.UTF_8)));
        var rs256 = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), valid);
        rs256.sign(new RSASSASigner(new RSAKeyGenerator(2048).generate()));
        String[] parts = Tokens.admin().split("\\.");
        String tampered = parts[0] + "."
                + Base64.getUrlEncoder()
                        .withoutPadding()
                        .encodeToString("{\"sub\":\"operator-1\",\"roles\":[\"coupon-admin\"],\"exp\":9999999999}"
                                .getBytes(StandardCharsets.UTF_8))
                + "." + parts[2];
        return Stream.of(
                Arguments.of("no token", null),
                Arguments.of("not a JWT", "Bearer abc"),
                Arguments.of("three dots of nothing", "Bearer not.a.jwt"),
                Arguments.of("empty bearer", "Bearer "),
                Arguments.of("basic scheme", "Basic b3BlcmF0b3I6c2VjcmV0"),
                Arguments.of("alg none", "Bearer " + none),
                Arguments.of("HS512 with another key", "Bearer " + hs512.serialize()),
                Arguments.of("RS256 with an unknown key", "Bearer " + rs256.serialize()),
                Arguments.of("payload tampered", "Bearer " + tampered),
                Arguments.of(
                        "signed with another secret",
                        "Bearer "
                                + Tokens.sign(
                                        "another-secret-that-is-long-enough-0123456789",
                                        "m-1",
                                        List.of(),
                                        LATER.toInstant())),
                Arguments.of(
                        "expired",
                        "Bearer " + Tokens.token("m-1", List.of(), Instant.now().minusSeconds(3600))),
                Arguments.of("sub with a space", "Bearer " + Tokens.token("m 1", List.of(), LATER.toInstant())),
                Arguments.of(
                        "sub over 64 characters",
                        "Bearer " + Tokens.token("m".repeat(65), List.of(), LATER.toInstant())),
                Arguments.of("sub with non-ASCII", "Bearer " + Tokens.token("회원", List.of(), LATER.toInstant())),
                Arguments.of("no sub", "Bearer " + signed(new JWTClaimsSet.Builder().expirationTime(LATER))),
                Arguments.of("no exp", "Bearer " + signed(new JWTClaimsSet.Builder().subject("m-1"))),
                Arguments.of("roles holding a number", "Bearer " + withRoles(List.of(1))),
                Arguments.of("roles holding an object", "Bearer " + withRoles(List.of(Map.of("name", "coupon-admin")))),
                Arguments.of(
                        "roles holding null", "Bearer " + withRoles(java.util.Arrays.asList("coupon-admin", null))),
                Arguments.of("roles as one string", "Bearer " + withRoles("coupon-admin")),
                Arguments.of("roles as an object", "Bearer " + withRoles(Map.of("coupon-admin", true))),
                Arguments.of("roles as a number", "Bearer " + withRoles(1)));
    }

    /** docs/http-api.md: {@code roles} is a JSON array of strings; anything else is a malformed token. */
    private static String withRoles(Object roles) throws Exception {
        return signed(
                new JWTClaimsSet.Builder().subject("m-1").expirationTime(LATER).claim("roles", roles));
    }

    private static String signed(JWTClaimsSet.Builder claims) throws Exception {
        var jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims.build());
        jwt.sign(new MACSigner(Tokens.SECRET.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("defects")
    void shouldAnswer401ProblemWhenTheTokenIsDefective(String label, String authorization) {
        for (String path : List.of("/api/v1/echo", "/admin/v1/echo")) {
            var request = http.get().uri(path);
            if (authorization != null) {
                request = request.header("Authorization", authorization);
            }
            expectProblem(request.exchange(), 401, "UNAUTHORIZED");
        }
    }
}
