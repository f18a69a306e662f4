-- Moves the cursor past a batch that Kafka acknowledged, only while this instance still owns the lease, and renews
-- the lease for the next batch. The cursor goes to just past the batch's last member wherever that member stands now:
-- a result re-added below the cursor after a restore (record_results.lua) shifts the queue and moves the cursor by
-- one, and an advance compared with the cursor the batch started at would refuse and have the batch published again.
-- It never moves the cursor back. A lease lost meanwhile (another instance may have published the batch and moved on)
-- changes nothing.
-- KEYS: 1 lease, 2 cursor, 3 queue       ARGV: 1 owner id, 2 the batch's last member, 3 lease ttl ms
-- Returns 1 when the cursor is past the batch, 0 when the lease was lost, -1 when the member is no longer in the queue
-- (Redis lost or removed the coupon's keys meanwhile).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
local rank = redis.call('ZRANK', KEYS[3], ARGV[2])
if not rank then
  return -1
end
local next = rank + 1
if next > tonumber(redis.call('GET', KEYS[2]) or '0') then
  redis.call('SET', KEYS[2], next)
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
