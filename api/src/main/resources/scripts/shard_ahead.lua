-- How many of a shard's admissions came before a time (docs/architecture.md, "Stock shards"): a member's position
-- adds this up over every shard. KEYS: 1 times   ARGV: 1 time (us)
-- Returns {admitted before the time, admitted in all}
return {redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. ARGV[1]), redis.call('ZCARD', KEYS[1])}
