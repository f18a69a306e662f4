-- One member's request, read in one step with the request's rate limits (check_limits, limits.lua, is put in front of
-- this file). Every key is in the coupon's slot.
-- KEYS: 1 meta, 2 queue, 3 result, 4 done, 5 the member's limit, 6 the address's limit, 7 the draw (draw.lua)
-- ARGV: 1 member id, 2-5 the member's and the address's requests per second and bursts (0: off)
-- Returns {found (0/1), sequence, result or '', done, rate, meta present (0/1)}, or {2, refusing limit (1 member,
-- 2 address), wait in ms} when a limit refuses (nothing charged), or {3, place, drawAt, rate} for a member of a
-- RANDOMIZED_START event's draw that has not taken place yet (place: where the tickets drawn so far put them). A
-- member the draw left out reads as found, with result 'F:SOLD_OUT'.
local refused, wait = check_limits(5, 2, 2)
if refused > 0 then
  return {2, refused, wait}
end
local seq = redis.call('ZSCORE', KEYS[2], ARGV[1])
local result = redis.call('HGET', KEYS[3], ARGV[1])
local done = tonumber(redis.call('GET', KEYS[4]) or '0')
local meta = redis.call('HMGET', KEYS[1], 'rate', 'drawAt', 'drawn')
local rate = tonumber(meta[1] or '0')
local metaPresent = redis.call('EXISTS', KEYS[1])
if not seq and not result then
  if tonumber(meta[2] or '0') > 0 then
    local place = redis.call('ZRANK', KEYS[7], ARGV[1])
    if place and meta[3] == '1' then
      return {1, 0, 'F:SOLD_OUT', done, rate, metaPresent}
    elseif place then
      return {3, place + 1, tonumber(meta[2]), rate}
    end
  end
  return {0, 0, '', done, rate, metaPresent}
end
return {1, tonumber(seq or '0'), result or '', done, rate, metaPresent}
