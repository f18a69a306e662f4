-- The second half of a transfer (docs/architecture.md, "Stock shards"): the receiving shard's cap goes up by the
-- amount its donor put in escrow, once per transfer id whoever runs it (the transferring instance, or any instance
-- completing the transfers of one that died).
-- KEYS: 1 stock, 2 received (set of transfer ids taken here)   ARGV: 1 transfer id, 2 amount
-- Returns {1} taken now, 0 taken before, -1 the shard has no stock hash (the amount stays in escrow)
if redis.call('HEXISTS', KEYS[1], 'share') == 0 then
  return {-1}
end
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then
  return {0}
end
redis.call('HINCRBY', KEYS[1], 'moved', tonumber(ARGV[2]))
redis.call('HINCRBY', KEYS[1], 'moves', 1)
return {1}
