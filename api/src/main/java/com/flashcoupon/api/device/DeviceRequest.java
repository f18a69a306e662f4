package com.flashcoupon.api.device;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

/**
 * Body of {@code PUT /api/v1/me/devices/{deviceToken}}. The platform is checked as text, so that neither a number (an
 * enum ordinal to Jackson) nor another spelling slips through.
 */
record DeviceRequest(
        @NotNull @Pattern(regexp = "ANDROID|IOS|WEB", message = "must be ANDROID, IOS or WEB")
        String platform) {

    Platform toPlatform() {
        return Platform.valueOf(platform);
    }
}
