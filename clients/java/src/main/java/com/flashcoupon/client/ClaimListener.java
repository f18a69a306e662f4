package com.flashcoupon.client;

/** Told of each change of a claim, on an OkHttp or a scheduler thread: hand it to the UI thread to show it. */
@FunctionalInterface
public interface ClaimListener {

    ClaimListener NONE = update -> {};

    void onUpdate(ClaimUpdate update);
}
