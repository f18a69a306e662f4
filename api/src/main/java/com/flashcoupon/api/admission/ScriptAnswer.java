package com.flashcoupon.api.admission;

/**
 * What an admission script answered ({@code admit.lua}, or {@code shard_admit.lua} read as admit.lua), the script
 * connection's epoch when it was sent, and the key whose primary took the admission's writes: the replica wait is made
 * there, counted only if the connection is still the one of that epoch; {@code onShard} when it was a shard's script.
 */
record ScriptAnswer(Admission admission, long epoch, String replicaKey, boolean onShard) {}
