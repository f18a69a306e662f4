-- Marks a shard sold out for good, once every shard was seen out with no transfer in escrow, twice, with no transfer
-- between (docs/architecture.md, "Stock shards"): its admissions then answer sold out in one step.
-- KEYS: 1 stock
if redis.call('HEXISTS', KEYS[1], 'share') == 1 then
  redis.call('HSET', KEYS[1], 'out', 1)
end
return {1}
