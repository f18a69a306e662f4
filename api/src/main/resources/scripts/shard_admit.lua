-- Admission of one member on their home shard (docs/architecture.md, "Stock shards"), in one step on the shard's slot,
-- as admit.lua is for an event of one shard: the member's and the address's rate limits (limits.lua, put in front),
-- the announcement, the gate (gate.lua, put in front: claim rules and the human check), the window, the member's
-- earlier admission (their home is always this shard, so one-per-member holds across shards), the shard's cap (share +
-- moved) and, once it is reached, the event's sold-out mark, the next sequence of the shard and ZADD NX. The event's settings are in the
-- shard's stock hash (shard_init.lua writes them on every mirror).
-- KEYS: 1 stock, 2 queue, 3 seq, 4 times, 5 the member's limit, 6 the address's limit, 7 stats, 8 the eligibility list,
--       9-10 COUNT_ONLY's would-be refusals by the list and by claims, 11 the draw, 12 results (all the shard's)
-- ARGV: 1 member id, 2-5 the member's and the address's requests per second and bursts (0: off), 6-7 the gate's: the
--       member's claims and the proof's check (gate.lua), 8 the event's shard count as the api knows it
-- The admission's time (microseconds, by this shard's primary's clock) goes into times: the drainer publishes across
-- shards in that order.
-- Returns {outcome, a, b, c, rate, e}:
--   0 the shard's stock or settings missing (the api asks the event again, then mirrors it again), nothing charged;
--     or the gate's list missing (gate.lua), after the limits were charged
--   1 admitted (a = sequence, b = what the shard has left after it, c = the admission's time, e = the gate's
--     COUNT_ONLY rules that would have refused, then the members the shard admitted before this one)
--   2 asked before (a = the same sequence, c = the admission's time, e = the member's result, '' while waiting)
--   3 sold out on every shard, 4 not open yet (a = openAt), 5 closed
--   6 rate limited: a = the refusing limit (1 member, 2 address), b = wait in ms; nothing charged
--   9 not announced yet, 10 refused by the gate (a = its reason, as admit.lua's)
--   11 this shard is out (a = admitted here, b = cap, c = the event's total): the api moves stock here from another
--      shard (shard_give, shard_take) and asks again; nothing charged
--   12 the event has another shard count than ARGV[8] (a = the shard count it has): nothing charged
local stock = redis.call('HMGET', KEYS[1], 'share', 'moved', 'out', 'total', 'openAt', 'closeAt', 'closed', 'rate',
  'announceAt', 'shards')
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
local cap = tonumber(stock[1]) + tonumber(stock[2] or '0')
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
redis.call('ZADD', KEYS[4], 'NX', at, ARGV[1])
return {1, seq, cap - admitted - 1, at, rate, gate_would or 0, admitted}
