-- Admission of one member to one coupon, first-come, in one atomic step with its rate limits (docs/architecture.md,
-- Delivery semantics). check_limits (limits.lua) and draw_window (draw.lua) are put in front of this file. Every key
-- is in the coupon's slot.
-- KEYS: 1 meta, 2 queue, 3 seq, 4 done, 5 stats, 6 result, 7 the member's limit, 8 the address's limit, 9 the draw
--       10-12 the gate's (gate.lua): the eligibility list, COUNT_ONLY's would-be refusals by the list and by claims
-- ARGV: 1 member id, 2-5 the member's and the address's requests per second and bursts (0: off)
--       6-7 the gate's: the member's claims and the proof's check (gate.lua)
-- Returns {outcome, a, b, c, d, e}:
--   0 mirror missing (the api restores it from MySQL and asks again; it never guesses), nothing charged
--   6 rate limited: a = the refusing limit (1 member, 2 address), b = wait in ms; nothing charged
--   1 admitted: a = sequence, b = done, c = rate, e = the gate's COUNT_ONLY rules that would have refused (gate.lua)
--   2 asked before: a = the same sequence, b = done, c = rate, d = the member's result ('' while waiting)
--   3 sold out, 4 not open yet (a = openAt), 5 closed: c = rate
--   7 in the draw of a RANDOMIZED_START event, newly (within its window): a = the entrants so far, b = drawAt,
--     c = rate, e = the places the draw would give them now; 8 the same, asked before (d = 'DRAWING' once the window
--     is closed and the draw is being made: a and e are then what the window froze)
--   9 not announced yet: before the event's announceAt, members are answered as for a coupon that does not exist
--     (charged to the rate limits like any admission)
--   10 refused by the gate (gate.lua), nothing written but its counter: a = 1 not on the list, 2 a claim rule,
--      3 proof required, 4 proof invalid, 5 human-check service unavailable, 6 a token to check first; c = rate
--   11 the event's stock is in shards (docs/architecture.md, "Stock shards"): a = their count; nothing charged, the api
--      admits the member on their home shard (shard_admit.lua)
--   after the draw, a member of it asking again gets 2: with their sequence, or with result 'F:SOLD_OUT' (not placed)
-- The stock cap counts the queue, base (admissions known only as a count after a Redis loss) and held (places of a
-- closed window that the draw job has not written into the queue yet).
local meta = redis.call('HMGET', KEYS[1], 'total', 'openAt', 'closeAt', 'closed', 'rate', 'base', 'announceAt',
  'shards')
if not meta[1] then
  return {0, 0, 0, 0, '', 0}
end
if meta[8] and meta[8] ~= '1' then
  return {11, tonumber(meta[8]), 0, 0, '', 0}
end
local refused, wait = check_limits(7, 2, 2)
if refused > 0 then
  return {6, refused, wait, 0, '', 0}
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local rate = tonumber(meta[5])
if now < (tonumber(meta[7] or '0') or 0) then
  return {9, 0, 0, 0, '', 0}
end
-- gate (issue 26): who the event is for, told only once the event is announced; a member holding a place (the queue
-- KEYS[2], the draw KEYS[9]) is never refused by it: the place lookups below answer them
local not_for, gate_would = gate_eligibility(KEYS[1], KEYS[10], KEYS[5], KEYS[11], KEYS[12], ARGV[1], ARGV[6],
  KEYS[2], KEYS[9])
if not_for == 'missing' then
  return {0, 0, 0, 0, '', 0}
elseif not_for > 0 then
  return {10, not_for, 0, tonumber(meta[5]), '', 0}
end
if now < tonumber(meta[2]) then
  return {4, tonumber(meta[2]), 0, rate, '', 0}
end
local closeAt = tonumber(meta[3])
if meta[4] == '1' or (closeAt > 0 and now >= closeAt) then
  return {5, 0, 0, rate, '', 0}
end
-- gate (issue 26): the human check, for members without a place yet
local unproven = gate_human(KEYS[1], KEYS[2], KEYS[9], KEYS[5], ARGV[1], ARGV[7])
if unproven > 0 then
  return {10, unproven, 0, rate, '', 0}
end
local state, draw_at = draw_window(KEYS[1], KEYS[2], KEYS[3], KEYS[9], now)
if state == 1 then
  -- a member asking again writes too (askedAgain): the api's replica WAIT then covers their first ask, made perhaps on
  -- another connection (a WAIT counts what its own connection wrote, up to the primary's offset then)
  local added = redis.call('ZADD', KEYS[9], 'NX', 0, ARGV[1])
  if added == 0 then
    redis.call('HINCRBY', KEYS[5], 'askedAgain', 1)
  end
  local entrants, places = draw_odds(KEYS[1], KEYS[2], KEYS[9], state)
  return {added == 1 and 7 or 8, entrants, draw_at, rate, '', places}
end
if state == 2 and redis.call('ZSCORE', KEYS[9], ARGV[1]) then
  local entrants, places = draw_odds(KEYS[1], KEYS[2], KEYS[9], state)
  redis.call('HINCRBY', KEYS[5], 'askedAgain', 1)
  return {8, entrants, draw_at, rate, 'DRAWING', places}
end
local done = tonumber(redis.call('GET', KEYS[4]) or '0')
local seq = redis.call('ZSCORE', KEYS[2], ARGV[1])
if seq then
  local result = redis.call('HGET', KEYS[6], ARGV[1]) or ''
  if result == '' then
    redis.call('HINCRBY', KEYS[5], 'askedAgain', 1)
  end
  return {2, tonumber(seq), done, rate, result, 0}
end
-- decided, and not in the queue: a member the worker recorded after a restore whose sequence it could not place (MySQL's
-- published count lagged behind Kafka's): asked before, with the result, never admitted again nor told sold out
local decided = redis.call('HGET', KEYS[6], ARGV[1])
if decided then
  return {2, 0, done, rate, decided, 0}
end
if draw_at > 0 and redis.call('ZSCORE', KEYS[9], ARGV[1]) then
  return {2, 0, done, rate, 'F:SOLD_OUT', 0}
end
-- held is read now, not with the meta above: this very call may have closed the window
local held = draw_at > 0 and tonumber(redis.call('HGET', KEYS[1], 'held') or '0') or 0
if redis.call('ZCARD', KEYS[2]) + tonumber(meta[6] or '0') + held >= tonumber(meta[1]) then
  redis.call('HINCRBY', KEYS[5], 'rejectedSoldOut', 1)
  return {3, 0, 0, rate, '', 0}
end
seq = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[2], 'NX', seq, ARGV[1])
return {1, seq, done, rate, '', gate_would or 0}
