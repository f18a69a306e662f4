-- The first half of a transfer of stock between shards (docs/architecture.md, "Stock shards"): the donor's cap goes
-- down and the amount goes into its escrow under the transfer's id, in one step on the donor's slot. From here until
-- shard_take ran on the receiving shard, the amount is in no shard's cap: the caps sum to less than the total, never
-- more. A donor gives at most half of what it has left (rounded up) and at most what is wanted, so stock follows the
-- demand and, near the end, moves one coupon at a time.
-- A fair start's places held on the shard ('held') are not given, and nothing is while its window is closed and the
-- draw's places not held yet (the sizing reads every shard's room: ShardDraws).
-- KEYS: 1 stock, 2 queue, 3 escrow   ARGV: 1 transfer id, 2 receiving shard, 3 wanted
-- Returns {the amount given} (0: nothing to give, or no such shard)
local stock = redis.call('HMGET', KEYS[1], 'share', 'moved', 'held', 'drawClosed', 'drawSized')
if not stock[1] or (stock[4] == '1' and stock[5] ~= '1') then
  return {0}
end
local free = tonumber(stock[1]) + tonumber(stock[2] or '0') - tonumber(stock[3] or '0') - redis.call('ZCARD', KEYS[2])
if free <= 0 then
  return {0}
end
local give = math.min(tonumber(ARGV[3]), math.ceil(free / 2))
redis.call('HINCRBY', KEYS[1], 'moved', -give)
redis.call('HINCRBY', KEYS[1], 'moves', 1)
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2] .. ':' .. give)
return {give}
