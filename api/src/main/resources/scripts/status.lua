-- One member's request, read in one step with the request's rate limits (check_limits, limits.lua, and draw_window,
-- draw.lua, are put in front of this file: a status read closes a RANDOMIZED_START event's window once it is over, as
-- an admission does). Every key is in the coupon's slot.
-- KEYS: 1 meta, 2 queue, 3 result, 4 done, 5 the member's limit, 6 the address's limit, 7 the draw, 8 seq
-- ARGV: 1 member id, 2-5 the member's and the address's requests per second and bursts (0: off)
-- Returns {found (0/1), sequence, result or '', done, rate, meta present (0/1), the event's stock shards}, or {2, refusing limit (1 member,
-- 2 address), wait in ms} when a limit refuses (nothing charged), or {3, entrants, drawAt, rate, places, state} for a
-- member of a RANDOMIZED_START event's draw that is not made yet (state 1: the window is open, the entrants and places
-- so far; 2: the window is closed, the draw is being made). A member the draw left out reads as found, with result
-- 'F:SOLD_OUT'. For an event of more than one stock shard, the api reads the member on their home shard
-- (shard_status.lua) instead of taking found, sequence, result and done from here.
local refused, wait = check_limits(5, 2, 2)
if refused > 0 then
  return {2, refused, wait}
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state, draw_at = draw_window(KEYS[1], KEYS[2], KEYS[8], KEYS[7], now)
local seq = redis.call('ZSCORE', KEYS[2], ARGV[1])
local result = redis.call('HGET', KEYS[3], ARGV[1])
local done = tonumber(redis.call('GET', KEYS[4]) or '0')
local rate = tonumber(redis.call('HGET', KEYS[1], 'rate') or '0')
local metaPresent = redis.call('EXISTS', KEYS[1])
local shards = tonumber(redis.call('HGET', KEYS[1], 'shards') or '1') or 1
if not seq and not result then
  -- of an event in shards, the member's draw is on their home shard (shard_status.lua), never the meta's
  if shards == 1 and draw_at > 0 and redis.call('ZSCORE', KEYS[7], ARGV[1]) then
    if state == 0 then
      return {1, 0, 'F:SOLD_OUT', done, rate, metaPresent, shards}
    end
    local entrants, places = draw_odds(KEYS[1], KEYS[2], KEYS[7], state)
    return {3, entrants, draw_at, rate, places, state}
  end
  return {0, 0, '', done, rate, metaPresent, shards}
end
return {1, tonumber(seq or '0'), result or '', done, rate, metaPresent, shards}
