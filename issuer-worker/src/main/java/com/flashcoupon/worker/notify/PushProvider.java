package com.flashcoupon.worker.notify;

/** Sends one push with one call and says what came of it; retries are the caller's ({@link PushSender}). */
interface PushProvider {

    Delivery send(Push push);
}
