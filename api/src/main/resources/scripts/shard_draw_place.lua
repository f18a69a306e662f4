-- Writes members a fair start's draw placed into their home shard's queue (ShardDraws), with the sequences the sizing
-- set aside and times before drawAt in the order of their places, so that the drainer publishes them first, in that
-- order, across shards. Idempotent: a member already queued keeps their place, and 'held' comes down by the members
-- really added.
-- KEYS: 1 stock, 2 queue, 3 times   ARGV: sequence, time (us), member, ...
-- Returns {added}, or {-1} when the shard has no stock (lost: nothing written)
if redis.call('HEXISTS', KEYS[1], 'share') == 0 then
  return {-1}
end
local added = 0
for i = 1, #ARGV, 3 do
  if redis.call('ZADD', KEYS[2], 'NX', ARGV[i], ARGV[i + 2]) == 1 then
    redis.call('ZADD', KEYS[3], 'NX', ARGV[i + 1], ARGV[i + 2])
    added = added + 1
  end
end
if added > 0 and redis.call('HGET', KEYS[1], 'drawn') ~= '1' then
  redis.call('HINCRBY', KEYS[1], 'held', -added)
end
return {added}
