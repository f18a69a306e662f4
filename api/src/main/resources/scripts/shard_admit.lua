-- Admission of one member on their home shard (docs/architecture.md, "Stock shards"), in one step on the shard's slot:
-- the member's earlier admission (their home is always this shard, so one-per-member holds across shards), the
-- event's sold-out mark, the shard's cap (share + moved), the next sequence of the shard and ZADD NX.
-- KEYS: 1 stock, 2 queue, 3 seq, 4 times   ARGV: 1 member id
-- The admission's time (microseconds, by this shard's primary's clock) goes into times: the drainer publishes across
-- shards in that order.
-- Returns {outcome, a, b, c}: 0 shard missing; 1 admitted (a = sequence, b = what the shard has left after it,
--   c = the admission's time); 2 asked before (a = the same sequence, c = the admission's time); 3 sold out on every
--   shard; 11 this shard is out (a = admitted here, b = cap, c = the event's total): the api moves stock here from
--   another shard (shard_give, shard_take) and asks again
local stock = redis.call('HMGET', KEYS[1], 'share', 'moved', 'out', 'total')
if not stock[1] then
  return {0, 0, 0}
end
local seq = redis.call('ZSCORE', KEYS[2], ARGV[1])
if seq then
  return {2, tonumber(seq), 0, tonumber(redis.call('ZSCORE', KEYS[4], ARGV[1]) or '0')}
end
if stock[3] == '1' then
  return {3, 0, 0}
end
local cap = tonumber(stock[1]) + tonumber(stock[2] or '0')
local admitted = redis.call('ZCARD', KEYS[2])
if admitted >= cap then
  return {11, admitted, cap, tonumber(stock[4] or '0')}
end
seq = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[2], 'NX', seq, ARGV[1])
local time = redis.call('TIME')
local at = tonumber(time[1]) * 1000000 + tonumber(time[2])
redis.call('ZADD', KEYS[4], 'NX', at, ARGV[1])
return {1, seq, cap - admitted - 1, at}
