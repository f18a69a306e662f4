package com.flashcoupon.api.admin;

import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * When members may first see an event (security review finding 14), under {@code coupon.announce}.
 *
 * @param lead how long before {@code openAt} an event created without {@code announceAt} is announced ({@code
 *     COUPON_ANNOUNCE_LEAD}); fixed on the row at creation, so changing it later moves no existing event
 */
@Validated
@ConfigurationProperties("coupon.announce")
public record AnnounceProperties(
        @DefaultValue("10m") @NotNull Duration lead) {}
