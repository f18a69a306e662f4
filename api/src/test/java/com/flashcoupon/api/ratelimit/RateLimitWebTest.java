package com.flashcoupon.api.ratelimit;

import static com.flashcoupon.api.support.ProblemAssert.expectProblem;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;

import com.flashcoupon.api.support.EchoController;
import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.api.support.WebSliceBase;
import com.flashcoupon.api.support.WebSliceTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.http.HttpMethod;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import reactor.core.publisher.Mono;

/**
 * The rate limit filter's answers (docs/http-api.md, Errors) with the check itself mocked (its Redis script has
 * {@link RateLimitScriptTest}): {@code 429 RATE_LIMITED} with {@code Retry-After}, {@code 503 UNAVAILABLE} when the
 * check fails, and the request through when allowed.
 */
@WebSliceTest
@Import({RateLimitFilter.class, EchoController.class})
class RateLimitWebTest extends WebSliceBase {

    @MockitoBean
    private RateLimits limits;

    @BeforeEach
    void limitsOn() {
        given(limits.enabled()).willReturn(true);
    }

    @ParameterizedTest
    @ValueSource(strings = {"member", "address"})
    void shouldAnswer429WithRetryAfterWhenTheLimitRefuses(String scope) {
        given(limits.check(eq("m-1"), any())).willReturn(Mono.just(new RateLimits.Verdict(scope, 3)));

        var response = call(HttpMethod.GET, "/api/v1/echo", Tokens.member("m-1"), null, null);
        response.expectHeader().valueEquals("Retry-After", "3");
        expectProblem(response, 429, "RATE_LIMITED");
    }

    @Test
    void shouldAnswer503WhenTheCheckFails() {
        given(limits.check(eq("m-1"), any()))
                .willReturn(Mono.error(new RedisConnectionFailureException("Redis is down")));

        expectProblem(call(HttpMethod.GET, "/api/v1/echo", Tokens.member("m-1"), null, null), 503, "UNAVAILABLE");
    }

    @Test
    void shouldLetTheRequestThroughWhenAllowed() {
        given(limits.check(eq("m-1"), any())).willReturn(Mono.just(RateLimits.Verdict.ALLOWED));

        call(HttpMethod.GET, "/api/v1/echo", Tokens.member("m-1"), null, null)
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .isEqualTo("m-1");
    }

    @Test
    void shouldNotCheckAnythingOutsideTheMemberApi() {
        call(HttpMethod.GET, "/admin/v1/echo", Tokens.admin(), null, null)
                .expectStatus()
                .isOk();
        verify(limits, never()).check(any(), any());
    }
}
