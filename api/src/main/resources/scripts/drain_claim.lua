-- Takes or renews this instance's lease on draining one coupon, and reads what is left to publish.
-- KEYS: 1 lease, 2 meta, 3 queue, 4 cursor       ARGV: 1 owner id, 2 lease ttl ms
-- Returns {owned (0/1), cursor, queued, rate, finished (0/1), base}; finished: closed or sold out, and all published.
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] then
  return {0, 0, 0, 0, 0}
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local meta = redis.call('HMGET', KEYS[2], 'total', 'closeAt', 'closed', 'rate', 'base')
if not meta[1] then
  return {0, 0, 0, 0, 0}
end
local cursor = tonumber(redis.call('GET', KEYS[4]) or '0')
local queued = redis.call('ZCARD', KEYS[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000
local closeAt = tonumber(meta[2])
local ended = meta[3] == '1' or (closeAt > 0 and now >= closeAt)
  or queued + tonumber(meta[5] or '0') >= tonumber(meta[1])
local finished = 0
if ended and cursor >= queued then
  finished = 1
end
return {1, cursor, queued, tonumber(meta[4]), finished, tonumber(meta[5] or '0')}
