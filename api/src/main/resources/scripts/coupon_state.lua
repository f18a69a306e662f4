-- What members and operators see of a coupon, read in one step.
-- KEYS: 1 meta, 2 queue, 3 cursor, 4 done, 5 stats, 6 the draw
-- Returns {present (0/1), name, total, openAt, closeAt, closed, rate, base, queued, cursor, done, rejectedSoldOut, now,
--          held, drawAt, draw state, entrants, places}: held counts places of a closed RANDOMIZED_START window that
--          are not in the queue yet; the draw state is 0 without a draw to wait for (FIFO, or made), 1 while the window
--          is open, 2 once it is over and until the draw is made (read only: this script closes nothing); entrants and
--          places are the draw's (so far, or as the window froze them); then announceAt (epoch ms, 0: always visible)
--          and the event's stock shards (above 1, queued, cursor, done and rejectedSoldOut are shard 0's alone: the api
--          adds up every shard's)
local meta = redis.call('HMGET', KEYS[1], 'name', 'total', 'openAt', 'closeAt', 'closed', 'rate', 'base', 'held',
  'drawAt', 'drawn', 'drawClosed', 'drawEntrants', 'drawPlaces', 'announceAt', 'shards')
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if not meta[2] then
  return {0, '', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, now, 0, 0, 0, 0, 0, 0, 1}
end
local queued = redis.call('ZCARD', KEYS[2])
local draw_at = tonumber(meta[9] or '0') or 0
local state, entrants, places = 0, 0, 0
if draw_at > 0 then
  if meta[11] == '1' then
    entrants, places = tonumber(meta[12] or '0'), tonumber(meta[13] or '0')
  else
    entrants = redis.call('ZCARD', KEYS[6])
    local room = tonumber(meta[2]) - tonumber(meta[7] or '0') - tonumber(meta[8] or '0') - queued
    places = math.max(0, math.min(room, entrants))
  end
  if meta[10] ~= '1' then
    state = (meta[11] == '1' or now >= draw_at) and 2 or 1
  end
end
return {1, meta[1] or '', tonumber(meta[2]), tonumber(meta[3]), tonumber(meta[4]), tonumber(meta[5]),
  tonumber(meta[6]), tonumber(meta[7] or '0'), queued,
  tonumber(redis.call('GET', KEYS[3]) or '0'), tonumber(redis.call('GET', KEYS[4]) or '0'),
  tonumber(redis.call('HGET', KEYS[5], 'rejectedSoldOut') or '0'), now,
  tonumber(meta[8] or '0'), draw_at, state, entrants, places, tonumber(meta[14] or '0') or 0,
  tonumber(meta[15] or '1') or 1}
