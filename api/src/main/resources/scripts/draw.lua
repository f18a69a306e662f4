-- The draw of a RANDOMIZED_START event (docs/architecture.md, "Queueing modes"). This file is put in front of the
-- scripts that may be the first to run after the window: admit.lua (a member asking) and drain_claim.lua (the
-- drainer's tick, so the draw happens even when nobody asks). Every key is in the coupon's slot.
--
-- The members who ask within the window get a ticket each: a random number the api drew for them, kept in the draw's
-- sorted set (ZADD NX: asking again never draws again). When the window ends, the lowest tickets get the places that
-- are left, in the tickets' order, as sequences after any already handed out; the others are told SOLD_OUT (admit.lua
-- and status.lua read that from the draw and the 'drawn' mark). The draw runs once, in one script, so every admission
-- after the window queues behind every member it placed.
--
-- draw_if_due(meta, queue, seq, draw, now): returns 1, drawAt while the window is open (the draw is pending); 0, drawAt
-- otherwise (drawAt 0: a FIFO event), having drawn when the window is over and the event had not drawn yet.
local function draw_if_due(meta_key, queue_key, seq_key, draw_key, now)
  local meta = redis.call('HMGET', meta_key, 'drawAt', 'drawn', 'total', 'base')
  local draw_at = tonumber(meta[1] or '0') or 0
  if draw_at == 0 or meta[2] == '1' then
    return 0, draw_at
  end
  if now < draw_at then
    return 1, draw_at
  end
  local room = tonumber(meta[3]) - tonumber(meta[4] or '0') - redis.call('ZCARD', queue_key)
  if room > 0 then
    local winners = redis.call('ZRANGE', draw_key, 0, room - 1)
    local seq = tonumber(redis.call('GET', seq_key) or '0')
    for _, member in ipairs(winners) do
      if redis.call('ZADD', queue_key, 'NX', seq + 1, member) == 1 then
        seq = seq + 1
      end
    end
    redis.call('SET', seq_key, seq)
  end
  redis.call('HSET', meta_key, 'drawn', '1')
  return 0, draw_at
end
