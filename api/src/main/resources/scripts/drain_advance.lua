-- Moves the cursor past a batch that Kafka acknowledged, only while this instance still owns the lease
-- and nobody moved the cursor meanwhile.
-- KEYS: 1 lease, 2 cursor       ARGV: 1 owner id, 2 cursor the batch started at, 3 new cursor
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
if tonumber(redis.call('GET', KEYS[2]) or '0') ~= tonumber(ARGV[2]) then
  return 0
end
redis.call('SET', KEYS[2], ARGV[3])
return 1
