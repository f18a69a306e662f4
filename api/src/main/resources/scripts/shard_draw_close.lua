-- The first step of sizing a fair start's draw across shards (ShardDraws, docs/architecture.md, "A fair start across
-- shards"): the shard's window is closed (no member enters its draw any more, whatever its clock says) and what it has
-- is read. A closed shard admits nobody and gives nothing until the sizing holds its part of the draw's places.
-- KEYS: 1 stock, 2 queue, 3 the shard's draw
-- Returns {exists (0/1), entrants, room (cap less admitted), sized (0/1)}
local stock = redis.call('HMGET', KEYS[1], 'share', 'moved', 'drawSized')
if not stock[1] then
  return {0, 0, 0, 0}
end
redis.call('HSET', KEYS[1], 'drawClosed', 1)
return {1, redis.call('ZCARD', KEYS[3]), tonumber(stock[1]) + tonumber(stock[2] or '0') - redis.call('ZCARD', KEYS[2]),
  stock[3] == '1' and 1 or 0}
