-- Mirrors a coupon's settings from MySQL (the system of record) into Redis.
-- KEYS: 1 meta, 2 queue, 3 seq, 4 cursor
-- ARGV: 1 name, 2 total, 3 openAt, 4 closeAt (0 = none), 5 closed (0/1), 6 rate,
--       7 base: admissions MySQL knows were handed to Kafka, used only when Redis lost the coupon entirely
-- Returns 1 when the coupon was already mirrored, 0 when this call restored it.
local existed = redis.call('EXISTS', KEYS[1])
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'total', ARGV[2], 'openAt', ARGV[3], 'closeAt', ARGV[4],
  'closed', ARGV[5], 'rate', ARGV[6])
if existed == 0 then
  if redis.call('EXISTS', KEYS[2]) == 0 then
    -- Nothing of this coupon survived: admissions already published stay counted (the stock floor),
    -- so a restored Redis never reopens stock that was handed out.
    redis.call('HSET', KEYS[1], 'base', ARGV[7])
    redis.call('SET', KEYS[3], ARGV[7])
    redis.call('SET', KEYS[4], 0)
  else
    redis.call('HSETNX', KEYS[1], 'base', 0)
  end
end
return existed
