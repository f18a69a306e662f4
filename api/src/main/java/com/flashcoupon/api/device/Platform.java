package com.flashcoupon.api.device;

/** Where a push token lives (docs/http-api.md, {@code PUT /api/v1/me/devices/{deviceToken}}). */
enum Platform {
    ANDROID,
    IOS,
    WEB
}
