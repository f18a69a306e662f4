-- What members and operators see of a coupon, read in one step.
-- KEYS: 1 meta, 2 queue, 3 cursor, 4 done, 5 stats
-- Returns {present (0/1), name, total, openAt, closeAt, closed, rate, base, queued, cursor, done, rejectedSoldOut, now}
local meta = redis.call('HMGET', KEYS[1], 'name', 'total', 'openAt', 'closeAt', 'closed', 'rate', 'base')
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if not meta[2] then
  return {0, '', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, now}
end
return {1, meta[1] or '', tonumber(meta[2]), tonumber(meta[3]), tonumber(meta[4]), tonumber(meta[5]),
  tonumber(meta[6]), tonumber(meta[7] or '0'), redis.call('ZCARD', KEYS[2]),
  tonumber(redis.call('GET', KEYS[3]) or '0'), tonumber(redis.call('GET', KEYS[4]) or '0'),
  tonumber(redis.call('HGET', KEYS[5], 'rejectedSoldOut') or '0'), now}
