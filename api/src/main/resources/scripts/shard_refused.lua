-- Counts a member refused as sold out on their home shard after every shard was found out (docs/architecture.md,
-- "Stock shards"): shard_admit.lua counts the refusals it makes itself, this the ones the sold-out check made.
-- KEYS: 1 the home shard's stats
return {redis.call('HINCRBY', KEYS[1], 'rejectedSoldOut', 1)}
