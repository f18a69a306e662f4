-- Stock shards (docs/architecture.md, "Stock shards"): the shard count an event's stock was last dealt for, as shard
-- 0's stock hash (the event's own tag, whatever the count) holds it; 0 when it was never dealt over shards.
-- KEYS: 1 shard 0's stock hash
return tonumber(redis.call('HGET', KEYS[1], 'shards') or '0')
