-- A fair start's counts on one shard, for the event's views (ShardDraws): its entrants, the places it holds, and once
-- the draw is sized, what the sizing froze.
-- KEYS: 1 stock, 2 the shard's draw
-- Returns {entrants, held, sized (0/1), the draw's entrants, the draw's places, the event's total}
local stock = redis.call('HMGET', KEYS[1], 'held', 'drawSized', 'drawEntrants', 'drawPlaces', 'total')
return {redis.call('ZCARD', KEYS[2]), tonumber(stock[1] or '0'), stock[2] == '1' and 1 or 0,
  tonumber(stock[3] or '0'), tonumber(stock[4] or '0'), tonumber(stock[5] or '0')}
