package com.flashcoupon.api.device;

import com.flashcoupon.api.blocking.BlockingIo;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.responses.ApiResponses;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Pattern;
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
 */
@RestController
class DeviceController {

    /** FCM tokens (about 160 characters of {@code [A-Za-z0-9_:-]}), APNs hex tokens, web push ids. */
    static final String TOKEN = "[A-Za-z0-9._:-]{1,255}";

    private static final String PATH = "/api/v1/me/devices/{deviceToken}";

    private final DeviceRepository devices;
    private final BlockingIo blocking;

    DeviceController(DeviceRepository devices, BlockingIo blocking) {
        this.devices = devices;
        this.blocking = blocking;
    }

    @ApiResponses(@ApiResponse(responseCode = "204", description = "Registered (idempotent)"))
    @PutMapping(path = PATH, consumes = "application/json")
    Mono<ResponseEntity<Void>> register(
            @PathVariable @Pattern(regexp = TOKEN) String deviceToken,
            @Valid @RequestBody DeviceRequest request,
            @AuthenticationPrincipal Jwt jwt) {
        return blocking.run(() -> devices.register(jwt.getSubject(), deviceToken, request.toPlatform()))
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
