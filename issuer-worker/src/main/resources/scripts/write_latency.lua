-- The MySQL write time of a batch of decisions, smoothed, into a stats hash for the api's drainer (which cuts the
-- coupon's effective rate when it passes a bound): writeMs and writeAt. Put in front of record_results.lua and
-- shard_results.lua. A weighted average (0.6 of the last, 0.4 of the new): one slow transaction is not a slow database
-- (below 2.5 times the drainer's bound, it never passes it), several in a row are. It starts from 0, so a coupon's
-- first transaction weighs as any other: it once started from that first one alone, and a fresh worker's first write
-- (396 ms: its JIT, its pool's first connection) read as a slow database cut a new event's rate to half for seconds,
-- and the waiting estimates with it.
local function record_write_latency(stats_key, written_ms, now)
  local written = tonumber(written_ms)
  local last = tonumber(redis.call('HGET', stats_key, 'writeMs') or '0')
  redis.call('HSET', stats_key, 'writeMs', math.floor(0.6 * last + 0.4 * written + 0.5), 'writeAt', now)
end

