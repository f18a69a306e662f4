-- The end of a transfer (docs/architecture.md, "Stock shards"): the donor's escrow forgets it once the receiving shard
-- took it. KEYS: 1 escrow   ARGV: 1 transfer id
return {redis.call('HDEL', KEYS[1], ARGV[1])}
