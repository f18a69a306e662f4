package com.flashcoupon.api.draw;

import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.responses.ApiResponses;
import jakarta.validation.constraints.Positive;
import java.time.Duration;
import org.springframework.http.CacheControl;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The public record of a fair start's draw: no token, cacheable, each request charged to its address's allowance
 * (RateLimitFilter), answered on the api's public port.
 */
@RestController
class PublicDrawController {

    /** Until the draw is made the record changes (entrants, state); after it, never. */
    static final CacheControl BEFORE =
            CacheControl.maxAge(Duration.ofSeconds(5)).cachePublic();

    static final CacheControl MADE = CacheControl.maxAge(Duration.ofHours(1)).cachePublic();

    private final PublicDraws draws;
    private final DrawExport export;

    PublicDrawController(PublicDraws draws, DrawExport export) {
        this.draws = draws;
        this.export = export;
    }

    @ApiResponses({
        @ApiResponse(
                responseCode = "200",
                description = "Every entrant of the draw by pseudonym, one per line in ascending order of the"
                        + " pseudonyms, with their ticket and place; nothing that names a member"),
        @ApiResponse(
                responseCode = "404",
                description = "COUPON_NOT_FOUND: no such event, a FIFO event, or one not announced yet"),
        @ApiResponse(
                responseCode = "409",
                description = "DRAW_NOT_MADE: the draw is not made yet, or was made with function 1 (its list names"
                        + " members: operators only)"),
        @ApiResponse(responseCode = "429", description = "RATE_LIMITED: the address's allowance is used up")
    })
    @GetMapping(path = "/public/v1/coupons/{couponId}/draw/entrants", produces = DrawController.TSV)
    ResponseEntity<Flux<String>> entrants(@PathVariable @Positive long couponId) {
        return ResponseEntity.ok().cacheControl(MADE).body(export.publicLines(couponId));
    }

    @ApiResponses({
        @ApiResponse(
                responseCode = "200",
                description = "The draw's public record: the commitment, the frozen entrant set's count and root, and"
                        + " once made, the seed, the places given and the function's version"),
        @ApiResponse(
                responseCode = "404",
                description = "COUPON_NOT_FOUND: no such event, a FIFO event, or one not announced yet"),
        @ApiResponse(responseCode = "429", description = "RATE_LIMITED: the address's allowance is used up")
    })
    @GetMapping("/public/v1/coupons/{couponId}/draw")
    Mono<ResponseEntity<PublicDraw>> draw(@PathVariable @Positive long couponId) {
        return draws.record(couponId)
                .map(draw -> ResponseEntity.ok()
                        .cacheControl("MADE".equals(draw.state()) ? MADE : BEFORE)
                        .body(draw));
    }
}
