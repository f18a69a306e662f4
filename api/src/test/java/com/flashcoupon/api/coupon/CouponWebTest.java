package com.flashcoupon.api.coupon;

import static com.flashcoupon.api.support.ProblemAssert.expectProblem;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.verifyNoInteractions;

import com.flashcoupon.api.ratelimit.RateLimits;
import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.api.support.WebSliceBase;
import com.flashcoupon.api.support.WebSliceTest;
import com.flashcoupon.api.web.ApiException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpMethod;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import reactor.core.publisher.Mono;

/** {@code GET /api/v1/coupons/{couponId}} refusing (docs/http-api.md): a bad id, an unknown coupon. */
@WebSliceTest
@Import(CouponController.class)
class CouponWebTest extends WebSliceBase {

    @MockitoBean
    private CouponStates states;

    @MockitoBean
    private RateLimits limits;

    /** Asked only after the state was found, which no test here lets happen. */
    @MockitoBean
    private com.flashcoupon.api.redemption.Benefits benefits;

    @MockitoBean
    private CouponDraws draws;

    @BeforeEach
    void limitsAllow() {
        given(limits.charge(any())).willReturn(Mono.empty());
    }

    @Test
    void shouldAnswer429WithRetryAfterWhenTheCouponsLimitRefuses() {
        given(limits.charge(any())).willReturn(Mono.error(ApiException.rateLimited(2)));

        var response = call(HttpMethod.GET, "/api/v1/coupons/42", Tokens.member("m-1"), null, null);
        expectProblem(response, 429, "RATE_LIMITED");
        response.expectHeader().valueEquals("Retry-After", "2");
        verifyNoInteractions(states);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/api/v1/coupons/%EC%BF%A0%ED%8F%B0", "/api/v1/coupons/0", "/api/v1/coupons/x"})
    void shouldAnswer400WithoutReadingStateWhenTheIdIsBad(String path) {
        expectProblem(call(HttpMethod.GET, path, Tokens.member("m-1"), null, null), 400, "INVALID_REQUEST");
        verifyNoInteractions(states);
    }

    @Test
    void shouldAnswer404WhenTheCouponDoesNotExist() {
        given(states.loadForMember(anyLong(), any())).willReturn(Mono.error(ApiException.couponNotFound(42)));

        expectProblem(
                call(HttpMethod.GET, "/api/v1/coupons/42", Tokens.member("m-1"), null, null), 404, "COUPON_NOT_FOUND");
    }
}
