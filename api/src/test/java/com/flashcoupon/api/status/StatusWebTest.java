package com.flashcoupon.api.status;

import static com.flashcoupon.api.support.ProblemAssert.expectProblem;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;

import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.api.support.WebSliceBase;
import com.flashcoupon.api.support.WebSliceTest;
import com.flashcoupon.api.web.ApiException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpMethod;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The status resource and its event stream refusing (docs/http-api.md): bad coupon ids, an unknown request. */
@WebSliceTest
@Import({StatusController.class, LiveStatusController.class})
@EnableConfigurationProperties(LiveProperties.class)
class StatusWebTest extends WebSliceBase {

    @MockitoBean
    private StatusService statuses;

    @MockitoBean
    private LiveStatusHub hub;

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/api/v1/coupons/1.5/issue-requests/me",
                "/api/v1/coupons/0/issue-requests/me",
                "/api/v1/coupons/-1/issue-requests/me/events",
                "/api/v1/coupons/abc/issue-requests/me/events"
            })
    void shouldAnswer400WithoutReachingTheServicesWhenTheCouponIdIsBad(String path) {
        expectProblem(call(HttpMethod.GET, path, Tokens.member("m-1"), null, null), 400, "INVALID_REQUEST");
        verifyNoInteractions(statuses);
        verify(hub, never())
                .open(anyLong(), anyString(), any(), any()); // a lifecycle bean: the context itself asks it things
    }

    @Test
    void shouldAnswer404WhenTheMemberNeverAsked() {
        given(statuses.status(anyLong(), anyString(), any())).willReturn(Mono.error(ApiException.requestNotFound(42)));
        given(hub.open(anyLong(), anyString(), any(), any())).willReturn(Flux.error(ApiException.requestNotFound(42)));

        expectProblem(
                call(HttpMethod.GET, "/api/v1/coupons/42/issue-requests/me", Tokens.member("m-1"), null, null),
                404,
                "REQUEST_NOT_FOUND");
        expectProblem(
                call(HttpMethod.GET, "/api/v1/coupons/42/issue-requests/me/events", Tokens.member("m-1"), null, null),
                404,
                "REQUEST_NOT_FOUND");
    }

    @Test
    void shouldAnswer404ProblemForAnUnknownRoute() {
        expectProblem(call(HttpMethod.GET, "/api/v1/nothing-here", Tokens.member("m-1"), null, null), 404, "NOT_FOUND");
    }
}
