-- Mirrors a coupon's settings from MySQL (the system of record) into Redis.
-- KEYS: 1 meta, 2 queue, 3 seq, 4 cursor, 5 retired mark, 6 done
-- ARGV: 1 name, 2 total, 3 openAt, 4 closeAt (0 = none), 5 closed (0/1), 6 rate,
--       7 base: admissions MySQL knows were handed to Kafka, used only when Redis lost the coupon entirely,
--       8 version of the MySQL row this snapshot was read from,
--       9 decided: members MySQL holds an outcome for (issued + failed), used only on a restore
-- Returns 1 when the coupon was already mirrored (and is now updated), 0 when this call restored it,
--         2 when Redis holds a newer version (a stale snapshot: nothing written, so a close is never undone),
--         3 when the event is retired (nothing written: a retired event never comes back into Redis).
if redis.call('EXISTS', KEYS[5]) == 1 then
  return 3
end
local stored = redis.call('HGET', KEYS[1], 'version')
if stored and tonumber(stored) > tonumber(ARGV[8]) then
  return 2
end
local existed = redis.call('EXISTS', KEYS[1])
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'total', ARGV[2], 'openAt', ARGV[3], 'closeAt', ARGV[4],
  'closed', ARGV[5], 'rate', ARGV[6], 'version', ARGV[8])
if existed == 0 then
  if redis.call('EXISTS', KEYS[2]) == 0 then
    -- Nothing of this coupon survived: admissions already published stay counted (the stock floor),
    -- so a restored Redis never reopens stock that was handed out.
    redis.call('HSET', KEYS[1], 'base', ARGV[7])
    redis.call('SET', KEYS[3], ARGV[7])
    redis.call('SET', KEYS[4], 0)
    -- Positions count from what is decided: the sequence restarts at base, so done must too, or every position
    -- after a restore would be inflated by the members decided before the loss.
    redis.call('SET', KEYS[6], ARGV[9])
  else
    redis.call('HSETNX', KEYS[1], 'base', 0)
  end
end
return existed
