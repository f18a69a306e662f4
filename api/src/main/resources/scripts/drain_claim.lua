-- Reads what is left to publish of one coupon and, when there is something, takes or renews this instance's lease
-- on draining it. No lease is taken for a coupon with nothing to publish: an idle or finished event costs this one
-- script call per tick and instance until it is retired. Every instance also gets the coupon's progress (done, the
-- drainer's effective rate and the worker's write latency) for its waiting estimates, whoever drains.
-- A RANDOMIZED_START event's window is closed here too, on the first tick after it (draw_window, draw.lua, put in front
-- of this file); until the draw job has written the places it gives into the queue, nothing of the coupon is
-- published: the members it places come before everyone admitted after the window.
-- KEYS: 1 lease, 2 meta, 3 queue, 4 cursor, 5 done, 6 stats, 7 seq, 8 the draw       ARGV: 1 owner id, 2 lease ttl ms
-- Returns {owned (0/1), cursor, queued, rate, base, done, effective rate ('' when none), reason of a cut or '',
-- worker write latency ms ('' when none), age of that latency in ms, the event's stock shards, its total quantity, its
-- closed flag (0/1) and its closeAt (epoch ms, 0 for none; these three -1 when not a number)}; owned is 0 when the
-- coupon is not in Redis, when nothing is left to publish, or when another instance holds the lease; rate is 0 when
-- the coupon is not in Redis. For an event of more than one shard, cursor, queued and done are shard 0's alone.
-- A field that is not a number (rate, base, done) comes back as -1, and a write time that is not one as an old one,
-- instead of failing the script on every tick (a stall nothing ended): the drainer logs and counts it.
local meta = redis.call('HMGET', KEYS[2], 'rate', 'base', 'effRate', 'effReason', 'shards', 'total', 'closed',
  'closeAt')
if not meta[1] then
  return {0, 0, 0, 0, 0, 0, '', '', '', 0}
end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local draw_state = draw_window(KEYS[2], KEYS[3], KEYS[7], KEYS[8], now)
local cursor = tonumber(redis.call('GET', KEYS[4]) or '0')
local queued = redis.call('ZCARD', KEYS[3])
local done = tonumber(redis.call('GET', KEYS[5]) or '0') or -1
local health = redis.call('HMGET', KEYS[6], 'writeMs', 'writeAt')
local age = 0
if health[2] then
  -- a write time that is not a number makes the latency look old (ignored), never fresh for ever
  age = now - (tonumber(health[2]) or 0)
end
local shards = tonumber(meta[5] or '1') or 1
local function progress(owned)
  return {owned, cursor, queued, tonumber(meta[1]) or -1, tonumber(meta[2] or '0') or -1, done, meta[3] or '', meta[4] or '',
    health[1] or '', age, shards, tonumber(meta[6] or '-1') or -1, tonumber(meta[7] or '0') or -1,
    tonumber(meta[8] or '0') or -1}
end
-- an event whose stock is in shards is published across them in admission-time order (docs/architecture.md, "Stock
-- shards"; ShardDrain), never from shard 0's queue alone: what is left to publish is on every shard, so its lease is
-- taken whatever shard 0 holds
if (cursor >= queued and shards == 1) or draw_state == 2 then
  return progress(0)
end
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] then
  return progress(0)
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return progress(1)
