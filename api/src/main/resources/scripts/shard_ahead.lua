-- How many of a shard's admissions came before a time, and how many of its members have their result (docs/
-- architecture.md, "Stock shards"): a member's position adds these up over every shard.
-- KEYS: 1 times, 2 done   ARGV: 1 time (us)
-- Returns {admitted before the time, admitted in all, done}
return {redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. ARGV[1]), redis.call('ZCARD', KEYS[1]),
  tonumber(redis.call('GET', KEYS[2]) or '0')}
