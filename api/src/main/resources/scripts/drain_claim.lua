-- Reads what is left to publish of one coupon and, when there is something, takes or renews this instance's lease
-- on draining it. No lease is taken for a coupon with nothing to publish: an idle or finished event costs this one
-- script call per tick and instance until it is retired.
-- KEYS: 1 lease, 2 meta, 3 queue, 4 cursor       ARGV: 1 owner id, 2 lease ttl ms
-- Returns {owned (0/1), cursor, queued, rate, base}; owned is 0 when the coupon is not in Redis, when nothing is
-- left to publish, or when another instance holds the lease.
local meta = redis.call('HMGET', KEYS[2], 'rate', 'base')
if not meta[1] then
  return {0, 0, 0, 0, 0}
end
local cursor = tonumber(redis.call('GET', KEYS[4]) or '0')
local queued = redis.call('ZCARD', KEYS[3])
if cursor >= queued then
  return {0, cursor, queued, 0, 0}
end
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] then
  return {0, cursor, queued, 0, 0}
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {1, cursor, queued, tonumber(meta[1]), tonumber(meta[2] or '0')}
