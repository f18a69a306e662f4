-- Removes a retired event's state from Redis in one step, and marks it retired for a while so that a restore that
-- read MySQL just before the retirement cannot write it back (mirror.lua refuses while the mark stands).
-- KEYS: 1 retired mark, 2.. every state key of the coupon (one slot)       ARGV: 1 mark ttl ms
-- UNLINK frees large values (a queue of 500,000 members) off Redis' main thread. Returns how many keys it removed.
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
return redis.call('UNLINK', unpack(KEYS, 2))
