package com.flashcoupon.api.device;

import com.flashcoupon.api.blocking.BlockingIo;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.responses.ApiResponses;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * Push tokens of the caller's devices (docs/http-api.md). Both verbs are idempotent and answer 204: registering twice changes
 * nothing, unregistering an unknown token is already done.
 *
 * <p>A member keeps at most {@code coupon.devices.max-per-member} tokens: registering one more removes their least
 * recently registered one, so that no member can make one result fan out to thousands of pushes (before, nothing
 * bounded it). A token registered by another member still moves to the caller: a push token is a secret of one app
 * install, and a phone that changed hands must get its new owner's pushes at once; why nothing more is asked of a move
 * is in docs/operations.md ("Push tokens"). Moves and removals are counted ({@code coupon_devices_moved_total},
 * {@code coupon_devices_removed_total}), so that a wave of them shows.
 */
@RestController
class DeviceController {

    /** FCM tokens (about 160 characters of {@code [A-Za-z0-9_:-]}), APNs hex tokens, web push ids. */
    static final String TOKEN = "[A-Za-z0-9._:-]{1,255}";

    private static final String PATH = "/api/v1/me/devices/{deviceToken}";

    private static final Logger log = LoggerFactory.getLogger(DeviceController.class);

    private final DeviceRepository devices;
    private final BlockingIo blocking;
    private final int maxPerMember;
    private final Counter moved;
    private final Counter removed;

    DeviceController(DeviceRepository devices, BlockingIo blocking, DeviceProperties properties, MeterRegistry meters) {
        this.devices = devices;
        this.blocking = blocking;
        this.maxPerMember = properties.maxPerMember();
        this.moved = Counter.builder("coupon.devices.moved")
                .description("Push tokens registered by a member that another member had registered before")
                .register(meters);
        this.removed = Counter.builder("coupon.devices.removed")
                .description("Push tokens removed because their member registered more than the cap allows")
                .register(meters);
    }

    @ApiResponses(@ApiResponse(responseCode = "204", description = "Registered (idempotent)"))
    @PutMapping(path = PATH, consumes = "application/json")
    Mono<ResponseEntity<Void>> register(
            @PathVariable @Pattern(regexp = TOKEN) String deviceToken,
            @Valid @RequestBody DeviceRequest request,
            @AuthenticationPrincipal Jwt jwt) {
        String member = jwt.getSubject();
        return blocking.call(() -> devices.register(member, deviceToken, request.toPlatform(), maxPerMember))
                .doOnNext(registration -> {
                    if (registration.movedFrom() != null) {
                        moved.increment();
                        log.info("a push token moved from member {} to member {}", registration.movedFrom(), member);
                    }
                    removed.increment(registration.removed());
                })
                .thenReturn(ResponseEntity.noContent().build());
    }

    @ApiResponses(@ApiResponse(responseCode = "204", description = "Unregistered (idempotent)"))
    @DeleteMapping(PATH)
    Mono<ResponseEntity<Void>> unregister(
            @PathVariable @Pattern(regexp = TOKEN) String deviceToken, @AuthenticationPrincipal Jwt jwt) {
        return blocking.run(() -> devices.unregister(jwt.getSubject(), deviceToken))
                .thenReturn(ResponseEntity.noContent().build());
    }
}
