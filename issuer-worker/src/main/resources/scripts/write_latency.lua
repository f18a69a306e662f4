-- The MySQL write time of a batch of decisions, smoothed, into a stats hash for the api's drainer (which cuts the
-- coupon's effective rate when it passes a bound): writeMs and writeAt. Put in front of record_results.lua and
-- shard_results.lua. A weighted average: one slow transaction is not a slow database, three in a row are.
local function record_write_latency(stats_key, written_ms, now)
  local written = tonumber(written_ms)
  local last = tonumber(redis.call('HGET', stats_key, 'writeMs') or written_ms)
  redis.call('HSET', stats_key, 'writeMs', math.floor(0.6 * last + 0.4 * written + 0.5), 'writeAt', now)
end

