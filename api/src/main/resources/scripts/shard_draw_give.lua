-- The first half of moving held places of a fair start's draw to the shard where its members are at home (ShardDraws):
-- as shard_give.lua, the amount leaves the donor's cap into its escrow, and leaves its held places too; shard_take.lua
-- ('held') adds it to the receiver's. Once per donor and receiver, whoever runs it (the draw is written by the next
-- pass of any instance after one died).
-- KEYS: 1 stock, 2 escrow   ARGV: 1 transfer id, 2 receiving shard, 3 amount
-- Returns {1} given now, {0} given before, {-1} the shard has no stock (lost: nothing written)
if redis.call('HEXISTS', KEYS[1], 'share') == 0 then
  return {-1}
end
if redis.call('HSETNX', KEYS[1], 'drawGave:' .. ARGV[2], ARGV[3]) == 0 then
  return {0}
end
local amount = tonumber(ARGV[3])
redis.call('HINCRBY', KEYS[1], 'moved', -amount)
redis.call('HINCRBY', KEYS[1], 'held', -amount)
redis.call('HINCRBY', KEYS[1], 'moves', 1)
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. ':' .. amount .. ':held')
return {1}
