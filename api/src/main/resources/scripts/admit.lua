-- Admission of one member to one coupon, first-come, in one atomic step with its rate limits (docs/architecture.md,
-- Delivery semantics). check_limits (limits.lua) is put in front of this file. Every key is in the coupon's slot.
-- KEYS: 1 meta, 2 queue, 3 seq, 4 done, 5 stats, 6 result, 7 the member's limit, 8 the address's limit
-- ARGV: 1 member id, 2-5 the member's and the address's requests per second and bursts (0: off)
-- Returns {outcome, a, b, c, d}:
--   0 mirror missing (the api restores it from MySQL and asks again; it never guesses), nothing charged
--   6 rate limited: a = the refusing limit (1 member, 2 address), b = wait in ms; nothing charged
--   1 admitted: a = sequence, b = done, c = rate
--   2 asked before: a = the same sequence, b = done, c = rate, d = the member's result ('' while waiting)
--   3 sold out, 4 not open yet (a = openAt), 5 closed: c = rate
local meta = redis.call('HMGET', KEYS[1], 'total', 'openAt', 'closeAt', 'closed', 'rate', 'base')
if not meta[1] then
  return {0, 0, 0, 0, ''}
end
local refused, wait = check_limits(7, 2, 2)
if refused > 0 then
  return {6, refused, wait, 0, ''}
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local rate = tonumber(meta[5])
if now < tonumber(meta[2]) then
  return {4, tonumber(meta[2]), 0, rate, ''}
end
local closeAt = tonumber(meta[3])
if meta[4] == '1' or (closeAt > 0 and now >= closeAt) then
  return {5, 0, 0, rate, ''}
end
local done = tonumber(redis.call('GET', KEYS[4]) or '0')
local seq = redis.call('ZSCORE', KEYS[2], ARGV[1])
if seq then
  return {2, tonumber(seq), done, rate, redis.call('HGET', KEYS[6], ARGV[1]) or ''}
end
if redis.call('ZCARD', KEYS[2]) + tonumber(meta[6] or '0') >= tonumber(meta[1]) then
  redis.call('HINCRBY', KEYS[5], 'rejectedSoldOut', 1)
  return {3, 0, 0, rate, ''}
end
seq = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[2], 'NX', seq, ARGV[1])
return {1, seq, done, rate, ''}
