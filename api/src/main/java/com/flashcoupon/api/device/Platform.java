package com.flashcoupon.api.device;

/** Where a push token lives (API.md, {@code PUT /api/v1/me/devices/{deviceToken}}). */
enum Platform {
    ANDROID,
    IOS,
    WEB
}
