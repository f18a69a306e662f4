-- What each shard of an event has published (docs/architecture.md, "Stock shards"), kept in the event's meta, where a
-- shard lost alone does not lose it: 'pub:K:i', its cursor less its 'back' (so a member the worker puts back, which
-- moves both, changes nothing), never lowered. The drainer writes it before it moves the shard's cursor past a batch
-- Kafka acknowledged: a mark may stand one batch ahead of the cursor, never behind what was published. Only marks the
-- first deal of the count started are written: an event Redis lost whole has none, and a shard of it lost alone later
-- is dealt no free stock.
-- KEYS: 1 meta   ARGV: 1 the shard count, then shard, mark pairs
-- Returns how many marks were raised.
local raised = 0
for i = 2, #ARGV, 2 do
  local field = 'pub:' .. ARGV[1] .. ':' .. ARGV[i]
  local mark = redis.call('HGET', KEYS[1], field)
  if mark and tonumber(ARGV[i + 1]) > tonumber(mark) then
    redis.call('HSET', KEYS[1], field, ARGV[i + 1])
    raised = raised + 1
  end
end
return raised
