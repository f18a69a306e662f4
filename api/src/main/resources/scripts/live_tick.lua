-- One coupon's progress for its open status streams, read once per tick however many streams there are. draw_window
-- (draw.lua) is put in front of this file: a tick closes a RANDOMIZED_START event's window once it is over.
-- KEYS: 1 meta, 2 done, 3 result, 4 queue, 5 the draw, 6 seq
-- ARGV: 1 n, then n members to look up the result of (streams whose turn has passed by the last tick), then members
--       waiting for a RANDOMIZED_START event's draw
-- Returns {done, rate, entrants, places, state, the result of each of the n members or '', then for each member of
--          the draw: their sequence once the draw placed them, -1 once it left them out, 0 while it is not made}, where
--          entrants, places and state are the draw's as draw_odds and draw_window tell them (0, 0, 0 for a FIFO event)
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state, draw_at = draw_window(KEYS[1], KEYS[4], KEYS[6], KEYS[5], now)
local entrants, places = 0, 0
if state > 0 then
  entrants, places = draw_odds(KEYS[1], KEYS[4], KEYS[5], state)
end
local done = tonumber(redis.call('GET', KEYS[2]) or '0')
local reply = {done, tonumber(redis.call('HGET', KEYS[1], 'rate') or '0'), entrants, places, state}
local n = tonumber(ARGV[1] or '0')
if n > 0 then
  local results = redis.call('HMGET', KEYS[3], unpack(ARGV, 2, n + 1))
  for i = 1, n do
    reply[#reply + 1] = results[i] or ''
  end
end
for i = n + 2, #ARGV do
  local seq = redis.call('ZSCORE', KEYS[4], ARGV[i])
  if seq then
    reply[#reply + 1] = tonumber(seq)
  elseif state == 0 and draw_at > 0 then
    reply[#reply + 1] = -1
  else
    reply[#reply + 1] = 0
  end
end
return reply
