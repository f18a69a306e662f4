-- The window of a RANDOMIZED_START event (docs/architecture.md, "Queueing modes"). This file is put in front of every
-- script that may be the first to run once the window is over: admit.lua, status.lua, live_tick.lua, drain_claim.lua
-- and draw_state.lua (the draw job's), so the window closes at drawAt whoever comes first. Every key is in the coupon's
-- slot.
--
-- The members who ask within the window enter the draw: its sorted set, every score 0, so that it keeps them in the
-- byte order of their ids, the order the draw's digest is taken in. The draw itself is not made here: it needs the
-- event's secret seed, which Redis never holds (the api's draw job makes it, DrawJob). The first script to run once
-- the window is over closes it: the entrants are frozen, and the places the draw will give (the stock left, at most
-- one per entrant) are held: their sequences (drawFrom .. drawFrom + places - 1) are taken from seq, and 'held' counts
-- them in the stock cap until the draw job has written the placed members into the queue. Admissions after the window
-- go on at once, queued after every place the draw gives.
--
-- draw_window(meta, queue, seq, draw, now) returns state, drawAt, where state is
--   0 when there is no draw to wait for (a FIFO event: drawAt 0; or the draw is made: 'drawn'),
--   1 while the window is open (now < drawAt, by Redis' clock),
--   2 once the window is closed and until the draw job marks the draw made.
local function draw_window(meta_key, queue_key, seq_key, draw_key, now)
  local meta = redis.call('HMGET', meta_key, 'drawAt', 'drawn', 'drawClosed', 'total', 'base')
  local draw_at = tonumber(meta[1] or '0') or 0
  if draw_at == 0 or meta[2] == '1' then
    return 0, draw_at
  end
  if meta[3] == '1' then
    return 2, draw_at
  end
  if now < draw_at then
    return 1, draw_at
  end
  local entrants = redis.call('ZCARD', draw_key)
  local room = tonumber(meta[4]) - tonumber(meta[5] or '0') - redis.call('ZCARD', queue_key)
  local places = math.max(0, math.min(room, entrants))
  local seq = tonumber(redis.call('GET', seq_key) or '0')
  redis.call('SET', seq_key, seq + places)
  redis.call('HSET', meta_key, 'drawClosed', '1', 'drawFrom', seq + 1, 'drawPlaces', places, 'held', places,
    'drawEntrants', entrants)
  return 2, draw_at
end

-- The draw's odds as they stand: the entrants so far and the places the draw would give them (the stock left, at most
-- one per entrant); once the window is closed, what it froze.
local function draw_odds(meta_key, queue_key, draw_key, state)
  if state == 2 then
    local frozen = redis.call('HMGET', meta_key, 'drawEntrants', 'drawPlaces')
    return tonumber(frozen[1] or '0'), tonumber(frozen[2] or '0')
  end
  local meta = redis.call('HMGET', meta_key, 'total', 'base', 'held')
  local entrants = redis.call('ZCARD', draw_key)
  local room = tonumber(meta[1] or '0') - tonumber(meta[2] or '0') - tonumber(meta[3] or '0')
    - redis.call('ZCARD', queue_key)
  return entrants, math.max(0, math.min(room, entrants))
end
