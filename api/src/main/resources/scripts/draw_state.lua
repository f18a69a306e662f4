-- The draw job's look at one RANDOMIZED_START event: closes its window if it is over (draw_window, draw.lua, put in
-- front of this file) and says what the draw has to do.
-- KEYS: 1 meta, 2 queue, 3 seq, 4 the draw
-- Returns {meta present (0/1), state (draw_window's: 0 made, 1 open, 2 to be made), first sequence, places, entrants,
--          made without a seed (0/1: drawn before draws were made by the draw job, with the api's own tickets)}
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {0, 0, 0, 0, 0, 0}
end
local state = draw_window(KEYS[1], KEYS[2], KEYS[3], KEYS[4], now)
local meta = redis.call('HMGET', KEYS[1], 'drawFrom', 'drawPlaces', 'drawEntrants', 'drawn')
local legacy = (meta[4] == '1' and not meta[1]) and 1 or 0
return {1, state, tonumber(meta[1] or '0'), tonumber(meta[2] or '0'), tonumber(meta[3] or '0'), legacy}
