package com.flashcoupon.api.draw;

import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.responses.ApiResponses;
import jakarta.validation.constraints.Positive;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;

/** The published draw of a RANDOMIZED_START event, for anyone checking it (the security chain requires coupon-admin). */
@RestController
class DrawController {

    static final String TSV = "text/tab-separated-values;charset=UTF-8";

    private final DrawExport export;

    DrawController(DrawExport export) {
        this.export = export;
    }

    @ApiResponses({
        @ApiResponse(
                responseCode = "200",
                description = "Every entrant of the draw, one per line, in the byte order of their member ids, with"
                        + " their ticket, place and outcome"),
        @ApiResponse(responseCode = "404", description = "COUPON_NOT_FOUND"),
        @ApiResponse(responseCode = "409", description = "DRAW_NOT_MADE: a FIFO event, or a draw not made yet")
    })
    @GetMapping(path = "/admin/v1/coupons/{couponId}/draw/entrants", produces = TSV)
    Flux<String> entrants(@PathVariable @Positive long couponId) {
        return export.lines(couponId);
    }
}
