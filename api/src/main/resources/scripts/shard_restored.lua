-- One shard of an event of K > 1 stock shards, as the mirror finds it before dealing (docs/architecture.md, "Stock
-- shards", "Redis lost"): whether it holds a share, how many members its queue holds, and for which count the deal
-- that last completed dealt it ('dealt', on every shard once all were dealt). A shard without a share whose queue the
-- restore filled (members MySQL decided, put back on their home shard) or whose event published admissions before is
-- made ready first, as mirror.lua does for an event of one shard: its sequence goes on above every sequence handed out
-- before, its cursor stands past the members with a result (all published: decided_cursor.lua, put in front), and done
-- counts them.
-- KEYS: 1 stock, 2 queue, 3 seq, 4 cursor, 5 done, 6 result, 7 the shard's retired mark, 8 its escrow
-- ARGV: 1 the floor: admissions MySQL knows were published or decided (its published count, or decided, the higher)
-- Returns {holds a share (0/1), queued, the count it was last fully dealt for (0: none), and for a shard holding one:
-- its cap (share + moved), the stock it gave into escrow and no shard took yet, its transfers made (moves: a read of
-- every shard is one view of the stock only if no shard's moves changed meanwhile), its back and again (a negative
-- back less again: places held in no cap for admissions published before a loss of this shard alone)}; a retired
-- shard {1, 0, 0}
if redis.call('EXISTS', KEYS[7]) == 1 then
  return {1, 0, 0}
end
local stock = redis.call('HMGET', KEYS[1], 'share', 'dealt', 'moved', 'moves', 'back', 'again')
local queued = redis.call('ZCARD', KEYS[2])
if stock[1] then
  local escrowed = 0
  for _, transfer in ipairs(redis.call('HVALS', KEYS[8])) do
    -- receiver:amount, or receiver:amount:held for a fair start's held places (shard_draw_give.lua)
    escrowed = escrowed + tonumber(string.match(transfer, '^%d+:(%-?%d+)') or '0')
  end
  return {1, queued, tonumber(stock[2] or '0'), tonumber(stock[1]) + tonumber(stock[3] or '0'), escrowed,
    tonumber(stock[4] or '0'), tonumber(stock[5] or '0'), tonumber(stock[6] or '0')}
end
if queued > 0 or tonumber(ARGV[1]) > 0 then
  local top = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
  redis.call('SET', KEYS[3], math.max(tonumber(redis.call('GET', KEYS[3]) or '0'), tonumber(ARGV[1]),
    tonumber(top[2] or '0')))
  redis.call('SET', KEYS[4], decided_cursor(KEYS[2], KEYS[6], queued))
  redis.call('SET', KEYS[5], redis.call('HLEN', KEYS[6]))
end
return {0, queued, 0}
