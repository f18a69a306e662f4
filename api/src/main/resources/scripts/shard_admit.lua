-- Admission of one member on their home shard (docs/architecture.md, "Stock shards"), in one step on the shard's slot,
-- as admit.lua is for an event of one shard: the member's and the address's rate limits (limits.lua, put in front),
-- the announcement, the gate (gate.lua, put in front: claim rules and the human check), the window, the member's
-- earlier admission (their home is always this shard, so one-per-member holds across shards), the shard's cap (share +
-- moved) and, once it is reached, the event's sold-out mark, the next sequence of the shard and ZADD NX. The event's settings are in the
-- shard's stock hash (shard_init.lua writes them on every mirror).
-- A fair start (docs/architecture.md, "A fair start across shards"): until drawAt (by this shard's clock, unless the
-- draw's sizing closed the shard first) a member enters the draw kept on their home shard; after it, an entrant is
-- answered DRAWING until the draw is made, and a newcomer is admitted only once the draw's places are held on every
-- shard (the sizing, ShardDraws: the api runs it on outcome 13 and asks again), from the room they leave, with a time
-- no earlier than drawAt so that the drainer publishes every place of the draw first.
-- KEYS: 1 stock, 2 queue, 3 seq, 4 times, 5 the member's limit, 6 the address's limit, 7 stats, 8 the eligibility list,
--       9-10 COUNT_ONLY's would-be refusals by the list and by claims, 11 the draw, 12 results, 13 done (all the
--       shard's)
-- ARGV: 1 member id, 2-5 the member's and the address's requests per second and bursts (0: off), 6-7 the gate's: the
--       member's claims and the proof's check (gate.lua), 8 the event's shard count as the api knows it
-- The admission's time (microseconds, by this shard's primary's clock) goes into times: the drainer publishes across
-- shards in that order.
-- Returns {outcome, a, b, c, rate, e}:
--   0 the shard's stock or settings missing (the api asks the event again, then mirrors it again), nothing charged;
--     or the gate's list missing (gate.lua), after the limits were charged
--   1 admitted (a = sequence, b = what the shard has left after it, c = the admission's time, e = the gate's
--     COUNT_ONLY rules that would have refused, then the members the shard admitted before this one, whether a fair
--     start's draw is pending, and the shard's members done: the api counts the other shards from its sights of them)
--   2 asked before (a = the same sequence, c = the admission's time, e = the member's result, '' while waiting)
--   3 sold out on every shard, 4 not open yet (a = openAt), 5 closed
--   6 rate limited: a = the refusing limit (1 member, 2 address), b = wait in ms; nothing charged
--   9 not announced yet, 10 refused by the gate (a = its reason, as admit.lua's)
--   11 this shard is out (a = admitted here, b = cap, c = the event's total): the api moves stock here from another
--      shard (shard_give, shard_take) and asks again; nothing charged. A donor closed for a fair start's sizing and not
--      sized (an instance died between the two) gives nothing until the draw job, which sizes before it draws, finishes
--      the sizing (within coupon.draw.check-every)
--   12 the event has another shard count than ARGV[8] (a = the shard count it has): nothing charged
--   7 entered the draw (within the window), 8 in the draw, asked before: a = the entrants (within the window this
--     shard's count times the shard count, an estimate; after it, what the sizing froze), b = drawAt, e = the places
--     the draw would give, f = 'DRAWING' once the window is closed; nothing placed until the draw is made
--   13 the window is closed on this shard and the draw's places are not held yet: the api sizes the draw and asks
--     again (the limits were charged)
--   a member admitted (1) gets g = 1 while the draw is not made: their place counts the places it holds
local stock = redis.call('HMGET', KEYS[1], 'share', 'moved', 'out', 'total', 'openAt', 'closeAt', 'closed', 'rate',
  'announceAt', 'shards', 'drawAt', 'drawClosed', 'drawSized', 'drawn', 'held', 'drawEntrants', 'drawPlaces')
if not stock[1] or not stock[5] then
  return {0, 0, 0, 0, 0, 0}
end
if stock[10] ~= ARGV[8] then
  return {12, tonumber(stock[10]), 0, 0, 0, 0}
end
local rate = tonumber(stock[8])
local seq = redis.call('ZSCORE', KEYS[2], ARGV[1])
-- the limits apply to every ask, a member holding a place too, as in admit.lua
local refused, wait = check_limits(5, 2, 2)
if refused > 0 then
  return {6, refused, wait, 0, rate, 0}
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if now < (tonumber(stock[9]) or 0) then
  return {9, 0, 0, 0, rate, 0}
end
local not_for, gate_would = gate_eligibility(KEYS[1], KEYS[8], KEYS[7], KEYS[9], KEYS[10], ARGV[1], ARGV[6], KEYS[2],
  KEYS[11])
if not_for == 'missing' then
  return {0, 0, 0, 0, 0, 0}
elseif not_for > 0 then
  return {10, not_for, 0, 0, rate, 0}
end
if now < tonumber(stock[5]) then
  return {4, tonumber(stock[5]), 0, 0, rate, 0}
end
local closeAt = tonumber(stock[6])
if stock[7] == '1' or (closeAt > 0 and now >= closeAt) then
  return {5, 0, 0, 0, rate, 0}
end
local unproven = gate_human(KEYS[1], KEYS[2], KEYS[11], KEYS[7], ARGV[1], ARGV[7])
if unproven > 0 then
  return {10, unproven, 0, 0, rate, 0}
end
local draw_at = tonumber(stock[11] or '0') or 0
local drawing = draw_at > 0 and stock[14] ~= '1'
if drawing then
  local estimate = math.min(tonumber(stock[4] or '0'), redis.call('ZCARD', KEYS[11]) * tonumber(stock[10]))
  if stock[12] ~= '1' and now < draw_at then
    local added = redis.call('ZADD', KEYS[11], 'NX', 0, ARGV[1])
    if added == 0 then
      redis.call('HINCRBY', KEYS[7], 'askedAgain', 1)
    end
    local entrants = redis.call('ZCARD', KEYS[11]) * tonumber(stock[10])
    return {added == 1 and 7 or 8, entrants, draw_at, 0, rate, math.min(tonumber(stock[4] or '0'), entrants), ''}
  end
  if stock[12] ~= '1' then
    redis.call('HSET', KEYS[1], 'drawClosed', 1)
  end
  if redis.call('ZSCORE', KEYS[11], ARGV[1]) then
    redis.call('HINCRBY', KEYS[7], 'askedAgain', 1)
    if stock[13] == '1' then
      return {8, tonumber(stock[16]), draw_at, 0, rate, tonumber(stock[17]), 'DRAWING'}
    end
    return {8, redis.call('ZCARD', KEYS[11]) * tonumber(stock[10]), draw_at, 0, rate, estimate, 'DRAWING'}
  end
  if stock[13] ~= '1' and not seq then
    return {13, 0, 0, 0, rate, 0}
  end
end
if seq then
  local result = redis.call('HGET', KEYS[12], ARGV[1]) or ''
  if result == '' then
    -- written, so that the api's replica WAIT on this connection covers the member's first admission too
    redis.call('HINCRBY', KEYS[7], 'askedAgain', 1)
  end
  return {2, tonumber(seq), 0, tonumber(redis.call('ZSCORE', KEYS[4], ARGV[1]) or '0'), rate, result}
end
-- decided, and not in the queue (the worker could not place them after a restore): asked before, with the result
local decided = redis.call('HGET', KEYS[12], ARGV[1])
if decided then
  return {2, 0, 0, 0, rate, decided}
end
-- an entrant the draw did not place (it is made: an entrant waiting for it was answered above)
if draw_at > 0 and redis.call('ZSCORE', KEYS[11], ARGV[1]) then
  return {2, 0, 0, 0, rate, 'F:SOLD_OUT'}
end
-- the places a fair start's draw holds are not this shard's to give until the draw writes its members in
local cap = tonumber(stock[1]) + tonumber(stock[2] or '0') - tonumber(stock[15] or '0')
local admitted = redis.call('ZCARD', KEYS[2])
if admitted >= cap then
  -- the sold-out mark answers at once, without a transfer; a place given back to this shard after it (a member put
  -- back, or one holding a second place, after a restore: shard_results.lua) goes to the next member at home here
  if stock[3] == '1' then
    redis.call('HINCRBY', KEYS[7], 'rejectedSoldOut', 1)
    return {3, 0, 0, 0, rate, 0}
  end
  return {11, admitted, cap, tonumber(stock[4] or '0'), rate, 0}
end
seq = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[2], 'NX', seq, ARGV[1])
local at = tonumber(time[1]) * 1000000 + tonumber(time[2])
if draw_at > 0 then
  -- a shard whose clock is behind, closed by the sizing: still after every place of the draw
  at = math.max(at, draw_at * 1000)
end
redis.call('ZADD', KEYS[4], 'NX', at, ARGV[1])
return {1, seq, cap - admitted - 1, at, rate, gate_would or 0, admitted, drawing and 1 or 0,
  tonumber(redis.call('GET', KEYS[13]) or '0')}
