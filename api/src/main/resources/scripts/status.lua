-- One member's request, read in one step with the request's rate limits (check_limits, limits.lua, is put in front of
-- this file). Every key is in the coupon's slot.
-- KEYS: 1 meta, 2 queue, 3 result, 4 done, 5 the member's limit, 6 the address's limit
-- ARGV: 1 member id, 2-5 the member's and the address's requests per second and bursts (0: off)
-- Returns {found (0/1), sequence, result or '', done, rate, meta present (0/1)}, or {2, refusing limit (1 member,
-- 2 address), wait in ms} when a limit refuses (nothing charged).
local refused, wait = check_limits(5, 2, 2)
if refused > 0 then
  return {2, refused, wait}
end
local seq = redis.call('ZSCORE', KEYS[2], ARGV[1])
local result = redis.call('HGET', KEYS[3], ARGV[1])
local done = tonumber(redis.call('GET', KEYS[4]) or '0')
local rate = tonumber(redis.call('HGET', KEYS[1], 'rate') or '0')
local metaPresent = redis.call('EXISTS', KEYS[1])
if not seq and not result then
  return {0, 0, '', done, rate, metaPresent}
end
return {1, tonumber(seq or '0'), result or '', done, rate, metaPresent}
