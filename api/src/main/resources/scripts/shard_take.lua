-- The second half of a transfer (docs/architecture.md, "Stock shards"): the receiving shard's cap goes up by the
-- amount its donor put in escrow, once per transfer id whoever runs it (the transferring instance, or any instance
-- completing the transfers of one that died).
-- A transfer of places a fair start's draw holds (shard_draw_give.lua; ARGV 3 'held') comes in held.
-- KEYS: 1 stock, 2 received (set of transfer ids taken here)   ARGV: 1 transfer id, 2 amount, 3 'held' or absent
-- Returns {1} taken now, 0 taken before, -1 the shard has no stock hash (the amount stays in escrow)
if redis.call('HEXISTS', KEYS[1], 'share') == 0 then
  return {-1}
end
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then
  return {0}
end
redis.call('HINCRBY', KEYS[1], 'moved', tonumber(ARGV[2]))
redis.call('HINCRBY', KEYS[1], 'moves', 1)
if ARGV[3] == 'held' then
  redis.call('HINCRBY', KEYS[1], 'held', tonumber(ARGV[2]))
end
return {1}
