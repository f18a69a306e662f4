package com.flashcoupon.client;

/** The push platform of a device token ({@code PUT /api/v1/me/devices/{deviceToken}}). */
public enum Platform {
    ANDROID,
    IOS,
    WEB
}
