package com.flashcoupon.worker.notify;

/** A member's registered push token. */
record Device(String token, String platform) {}
