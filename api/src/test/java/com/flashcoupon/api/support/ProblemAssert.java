package com.flashcoupon.api.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

/** The contract's error shape (docs/http-api.md, Errors): RFC 9457 with a stable code and nothing internal. */
public final class ProblemAssert {

    private ProblemAssert() {}

    /** Asserts the status, the problem media type, code, status, title and detail, and no trace; returns the body. */
    public static String expectProblem(WebTestClient.ResponseSpec response, int status, String code) {
        EntityExchangeResult<String> result = response.expectBody(String.class).returnResult();
        String body = result.getResponseBody();
        assertThat(result.getStatus().value()).as("status of %s", body).isEqualTo(status);
        assertThat(result.getResponseHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
        assertThat(body)
                .contains("\"code\":\"" + code + "\"", "\"status\":" + status, "\"title\":", "\"detail\":")
                .doesNotContain("Exception", "com.flashcoupon", "org.springframework", "\tat ", "java.");
        return body;
    }
}
