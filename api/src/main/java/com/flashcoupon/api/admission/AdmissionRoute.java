package com.flashcoupon.api.admission;

import static org.springframework.web.reactive.function.server.RequestPredicates.POST;

import com.flashcoupon.api.web.ProblemAnswers;
import com.flashcoupon.api.web.ProblemWriter;
import java.net.URI;
import java.security.Principal;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RequestPredicate;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/**
 * The admission, the one request a flash crowd sends, as a functional route in front of {@link AdmissionController}:
 * the same answers without the annotated handler's work per request (mapping by every controller's patterns, argument
 * resolution, method validation, {@code ResponseEntity} handling, content negotiation over every writer), which a
 * profile of a crowd put at about 15% of the api's CPU. The status is written as JSON bytes by the application's
 * mapper. A coupon id that is not a positive number does not match, and the controller answers it as before (400 with
 * the field), as it answers a wrong method (405) and describes the endpoint in the OpenAPI document.
 */
@Configuration(proxyBeanMethods = false)
class AdmissionRoute {

    static final String PATH = "/api/v1/coupons/{couponId}/issue-requests";

    @Bean
    RouterFunction<ServerResponse> admission(AdmissionService admissions, JsonMapper json, ProblemWriter problems) {
        var handler = new Handler(admissions, json, problems);
        return RouterFunctions.route(POST(PATH).and(POSITIVE_ID), handler::admit);
    }

    /** The path's coupon id is a positive long: 1 to 19 digits, no sign, no leading zero, no overflow. */
    private static final RequestPredicate POSITIVE_ID = request -> couponId(request) > 0;

    static long couponId(ServerRequest request) {
        String text = request.pathVariables().get("couponId");
        if (text == null || text.isEmpty() || text.length() > 19 || text.charAt(0) == '0') {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
            if (value < 0) {
                return -1; // past Long.MAX_VALUE
            }
        }
        return value;
    }

    private record Handler(AdmissionService admissions, JsonMapper json, ProblemWriter problems) {

        Mono<ServerResponse> admit(ServerRequest request) {
            long couponId = couponId(request);
            return request.principal()
                    .map(Principal::getName)
                    .flatMap(member -> admissions.admit(
                            couponId, member, request.exchange().getRequest()))
                    .flatMap(answer -> ServerResponse.status(
                                    answer.newlyAdmitted() ? HttpStatus.ACCEPTED : HttpStatus.OK)
                            .location(URI.create("/api/v1/coupons/" + couponId + "/issue-requests/me"))
                            .contentType(MediaType.APPLICATION_JSON)
                            .bodyValue(json.writeValueAsBytes(answer.status())))
                    .onErrorResume(error -> {
                        var problem = ProblemAnswers.of(error, request.exchange());
                        return ServerResponse.status(problem.getStatusCode())
                                .headers(headers -> headers.addAll(problem.getHeaders()))
                                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                                .bodyValue(problems.bytes(problem.getBody()));
                    });
        }
    }
}
