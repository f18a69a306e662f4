-- Stock shards (docs/architecture.md, "Stock shards"): the stock hash of a shard of an event whose shard count was
-- changed before it opened is removed, so that an instance still asking with the old count finds no stock there
-- (shard_admit.lua answers 0: it asks the event again) instead of admitting on a shard the event no longer has.
-- Removed only while the shard has admitted nobody: a shard count never changes once members hold places.
-- KEYS: 1 the shard's stock hash, 2 its queue
-- Returns 1 when removed (or already absent), 0 when the shard holds admissions (nothing removed).
if redis.call('ZCARD', KEYS[2]) > 0 then
  return 0
end
redis.call('DEL', KEYS[1])
return 1
