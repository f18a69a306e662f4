-- The drain's cursor of a queue restored from MySQL (docs/architecture.md, "Redis lost, and restored from MySQL"):
-- the rank of the first member without a result. Every decided member (published) has one, and the members a recorded
-- draw placed that were never published (restored without one) queue above all of them, so the drain publishes those
-- and nothing twice. A binary search over ranks: a few calls for any size. Put in front of mirror.lua (one shard) and
-- shard_restored.lua (a shard of several).
local function decided_cursor(queue_key, result_key, queued)
  local low, high = 0, queued
  while low < high do
    local mid = math.floor((low + high) / 2)
    if redis.call('HEXISTS', result_key, redis.call('ZRANGE', queue_key, mid, mid)[1]) == 1 then
      low = mid + 1
    else
      high = mid
    end
  end
  return low
end
