-- Moves a shard's drain cursor just past the last of its members in a batch Kafka acknowledged, where that member
-- stands now; never back (docs/architecture.md, "Stock shards").
-- KEYS: 1 queue, 2 cursor   ARGV: 1 the batch's last member of this shard
-- Returns {the cursor}
local rank = redis.call('ZRANK', KEYS[1], ARGV[1])
local cursor = tonumber(redis.call('GET', KEYS[2]) or '0')
if rank and rank + 1 > cursor then
  cursor = rank + 1
  redis.call('SET', KEYS[2], cursor)
end
return {cursor}
