-- One member's request on their home shard of an event whose stock is in shards (docs/architecture.md, "Stock
-- shards"): their admission's time and their result, if any. The rate limits were charged by status.lua on the event's
-- slot; the position adds up every shard's admissions before the time (shard_ahead.lua).
-- KEYS: 1 the shard's queue, 2 its times, 3 its results   ARGV: 1 member id
-- Returns {found (0/1), the admission's time (us, 0 when not found), result or ''}
local seq = redis.call('ZSCORE', KEYS[1], ARGV[1])
local result = redis.call('HGET', KEYS[3], ARGV[1]) or ''
if not seq and result == '' then
  return {0, 0, ''}
end
return {1, tonumber(redis.call('ZSCORE', KEYS[2], ARGV[1]) or '0'), result}
