-- One member's request on their home shard of an event whose stock is in shards (docs/architecture.md, "Stock
-- shards"): their admission's time and their result, if any. The rate limits were charged by status.lua on the event's
-- slot; the position adds up every shard's admissions before the time (shard_ahead.lua).
-- KEYS: 1 the shard's queue, 2 its times, 3 its results, 4 its draw, 5 its stock   ARGV: 1 member id
-- Returns {found (0/1), the admission's time (us, 0 when not found), result or ''}; a member of a fair start's draw
-- that is not made yet: {2, entrants, places, drawAt, state (1 the window is open, 2 closed)}, the counts as
-- shard_admit.lua answers them; one the draw did not place: found, with result 'F:SOLD_OUT'
local seq = redis.call('ZSCORE', KEYS[1], ARGV[1])
local result = redis.call('HGET', KEYS[3], ARGV[1]) or ''
if not seq and result == '' then
  if redis.call('ZSCORE', KEYS[4], ARGV[1]) then
    local stock = redis.call('HMGET', KEYS[5], 'drawAt', 'drawn', 'drawClosed', 'drawSized', 'drawEntrants',
      'drawPlaces', 'total', 'shards')
    local draw_at = tonumber(stock[1] or '0') or 0
    if draw_at > 0 then
      if stock[2] == '1' then
        return {1, 0, 'F:SOLD_OUT'}
      end
      if stock[4] == '1' then
        return {2, tonumber(stock[5]), tonumber(stock[6]), draw_at, 2}
      end
      local time = redis.call('TIME')
      local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
      local entrants = redis.call('ZCARD', KEYS[4]) * tonumber(stock[8] or '1')
      local state = (stock[3] == '1' or now >= draw_at) and 2 or 1
      return {2, entrants, math.min(tonumber(stock[7] or '0'), entrants), draw_at, state}
    end
  end
  return {0, 0, ''}
end
return {1, tonumber(redis.call('ZSCORE', KEYS[2], ARGV[1]) or '0'), result}
