package com.flashcoupon.api.security;

import static com.flashcoupon.api.support.ProblemAssert.expectProblem;

import com.flashcoupon.api.support.EchoController;
import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.api.support.WebSliceBase;
import com.flashcoupon.api.support.WebSliceTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.annotation.Import;

/**
 * docs/http-api.md, Authentication, with the api's real security configuration: no token is {@code 401 UNAUTHORIZED}
 * with a bearer challenge, a member on an admin endpoint {@code 403 FORBIDDEN}, both as problems; bad and expired
 * tokens are in {@link TokenDefectsWebTest}.
 */
@WebSliceTest
@Import(EchoController.class)
class AuthenticationWebTest extends WebSliceBase {

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
