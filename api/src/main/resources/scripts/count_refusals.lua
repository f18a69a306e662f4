-- Adds sold-out refusals answered by one api instance without Redis to the coupon's counter, only while the coupon
-- is in Redis: a count that arrives after the event was retired (or lost) writes nothing, so it cannot leave a key
-- behind that nothing would ever remove.
-- KEYS: 1 meta, 2 stats       ARGV: 1 refusals to add
-- Returns the new count, or -1 when the coupon is not in Redis.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
return redis.call('HINCRBY', KEYS[2], 'rejectedSoldOut', ARGV[1])
