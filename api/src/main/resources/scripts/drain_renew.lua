-- Extends this instance's drain lease on one coupon while a batch waits for Kafka's acknowledgement, only while this
-- instance still owns it: a slow broker must not hand the coupon to another instance, which would publish the same
-- batch again. The draw job renews its lease on a draw ({cpn:ID}:drawing) the same way while it reads the entrants.
-- KEYS: 1 lease       ARGV: 1 owner id, 2 lease ttl ms
-- Returns 1 when renewed, 0 when the lease expired or another instance holds it.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
