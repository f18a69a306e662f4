package com.flashcoupon.api.plane;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

/**
 * The private plane, under {@code coupon.private-plane} (environment: {@code COUPON_PRIVATE_PORT},
 * {@code COUPON_ADMIN_PORT}; docs/operations.md, "Two planes").
 *
 * @param port the port of a second listener that alone answers {@code /admin/**} and {@code /internal/**} (the public
 *     port then answers them 404, as any unknown path); empty, the default: one port answers every path, as bin/up runs
 *     it. 0 picks a free port (tests). With it, the actuator must be on a port of its own ({@code management.server.port},
 *     {@code COUPON_MANAGEMENT_PORT}): the api does not start otherwise.
 * @param adminPort with a private port, a third listener for the operators alone ({@code COUPON_ADMIN_PORT}):
 *     {@code /admin/**} then answers only there and the private port keeps {@code /internal/**}, so that a network
 *     policy can let the order service reach one and the operators the other. Empty: both on the private port.
 */
@Validated
@ConfigurationProperties("coupon.private-plane")
public record PrivatePlaneProperties(
        @Nullable @Min(0) @Max(65535) Integer port,
        @Nullable @Min(0) @Max(65535) Integer adminPort) {}
