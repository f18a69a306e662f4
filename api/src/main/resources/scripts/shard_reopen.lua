-- Takes a shard's sold-out mark away (shard_out.lua), after a shard lost alone was dealt again (ShardDeal): its free
-- stock is reachable from every shard again, by transfers, and the sold-out check marks the shards once more when it
-- is gone. Without this, a newcomer at home on a shard marked out was answered sold out in one step while the shard
-- dealt again still held coupons (ShardLostAloneClusterTest, in its first run: 11 of 600 stranded).
-- KEYS: 1 stock
return {redis.call('HDEL', KEYS[1], 'out')}
