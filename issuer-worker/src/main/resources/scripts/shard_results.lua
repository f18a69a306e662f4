-- Records the outcome of requests of an event whose stock is in shards, on each member's home shard, for status reads
-- (docs/architecture.md, "Stock shards"), once per member, as record_results.lua does for an event of one shard.
-- KEYS: 1 the shard's results (member -> "I:<walletCouponId>" | "F:<reason>"), 2 its done counter, 3 its retired mark
--       (a replayed record then writes nothing), 4 its stock hash (the shard is mirrored while it exists), 5 its stats
-- ARGV: write ms ('' for none: given on shard 0 alone, whose stats the drainer reads), now (epoch ms), member1,
--       value1, member2, value2, ...
-- A member already in the hash keeps its first value and is not counted again, so replays never double-count. Putting
-- back members a Redis loss took from a shard's queue is the restore's (not done here yet for shards).
-- write_latency.lua is put in front. Returns how many members were new.
if redis.call('EXISTS', KEYS[3]) == 1 then
  return 0
end
if ARGV[1] ~= '' and redis.call('EXISTS', KEYS[4]) == 1 then
  record_write_latency(KEYS[5], ARGV[1], ARGV[2])
end
local added = 0
for i = 3, #ARGV, 2 do
  if redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) == 1 then
    redis.call('INCR', KEYS[2])
    added = added + 1
  end
end
return added
