-- COUNT_ONLY's would-be refusals of an event of more than one stock shard, one rule's HyperLogLogs (one per shard,
-- read by gate_counts_read.lua) merged into one (GateCounts): the union of the shards' members, counted once each (a
-- sketch restored on shard 0 after a loss holds members of every shard). Run in shard 0's slot, on scratch keys only.
-- KEYS: 1, 2 scratch keys (gone when this returns)   ARGV: the sketches, Redis' own encoding ('' none)
-- Returns {the union's count, its sketch}, as strings; {'0', ''} when there was none.
redis.call('DEL', KEYS[1])
local any = false
for i = 1, #ARGV do
  if ARGV[i] ~= '' then
    redis.call('SET', KEYS[2], ARGV[i])
    redis.call('PFMERGE', KEYS[1], KEYS[2])
    any = true
  end
end
if not any then
  redis.call('DEL', KEYS[2])
  return {'0', ''}
end
local merged = {tostring(redis.call('PFCOUNT', KEYS[1])), redis.call('GET', KEYS[1])}
redis.call('DEL', KEYS[1], KEYS[2])
return merged
