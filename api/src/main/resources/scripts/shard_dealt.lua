-- Marks a shard as dealt by a deal that completed on every shard of the count (docs/architecture.md, "Stock shards"):
-- from then on a shard of that count found without a share was lost with its primary, not left by a deal that failed
-- part way, and the mirror gives it back no more than its members (shard_restored.lua, ShardDeal). On shard 0, after a
-- deal from what MySQL knows (a restore), the meta's base too: the admissions known only as a count (published, their
-- members not decided when Redis was lost), which every shard's members put back do not hold.
-- KEYS: 1 stock, 2 (shard 0, after a restore) the event's meta   ARGV: 1 the shard count, 2 base (with KEYS[2])
if redis.call('HEXISTS', KEYS[1], 'share') == 1 then
  redis.call('HSET', KEYS[1], 'dealt', ARGV[1])
end
if KEYS[2] and redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'base', ARGV[2])
end
return 1
