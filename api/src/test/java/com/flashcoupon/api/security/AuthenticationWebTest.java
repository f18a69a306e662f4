package com.flashcoupon.api.security;

import static com.flashcoupon.api.support.ProblemAssert.expectProblem;

import com.flashcoupon.api.support.EchoController;
import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.api.support.WebSliceTest;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * docs/http-api.md, Authentication, with the api's real security configuration: no, bad or expired token is
 * {@code 401 UNAUTHORIZED}, a member on an admin endpoint {@code 403 FORBIDDEN}, both as problems.
 */
@WebSliceTest
@Import(EchoController.class)
class AuthenticationWebTest {

    @Autowired
    private WebTestClient http;

    static Stream<Arguments> badTokens() {
        Instant later = Instant.now().plusSeconds(600);
        return Stream.of(
                Arguments.of(
                        "expired", Tokens.token("m-1", List.of(), Instant.now().minus(1, ChronoUnit.HOURS))),
                Arguments.of(
                        "signed with another secret",
                        Tokens.sign("another-secret-that-is-long-enough-0123456789", "m-1", List.of(), later)),
                Arguments.of("subject with a space", Tokens.token("has space", List.of(), later)),
                Arguments.of("not a JWT", "not.a.jwt"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badTokens")
    void shouldAnswer401WhenTheTokenIsBad(String label, String token) {
        for (String path : List.of("/api/v1/echo", "/admin/v1/echo")) {
            expectProblem(
                    http.get()
                            .uri(path)
                            .header("Authorization", "Bearer " + token)
                            .exchange(),
                    401,
                    "UNAUTHORIZED");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"/api/v1/echo", "/admin/v1/echo"})
    void shouldAnswer401WithBearerChallengeWhenThereIsNoToken(String path) {
        var response = http.get().uri(path).exchange();
        response.expectHeader().valueEquals("WWW-Authenticate", "Bearer");
        expectProblem(response, 401, "UNAUTHORIZED");
    }

    @Test
    void shouldAnswer403WhenAMemberCallsAnAdminEndpoint() {
        expectProblem(
                http.get()
                        .uri("/admin/v1/echo")
                        .header("Authorization", "Bearer " + Tokens.member("m-1"))
                        .exchange(),
                403,
                "FORBIDDEN");
    }

    @Test
    void shouldLetAValidTokenThroughAsItsSubject() {
        http.get()
                .uri("/api/v1/echo")
                .header("Authorization", "Bearer " + Tokens.member("m-1"))
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .isEqualTo("m-1");
        http.get()
                .uri("/admin/v1/echo")
                .header("Authorization", "Bearer " + Tokens.admin())
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .isEqualTo("operator-1");
    }
}
