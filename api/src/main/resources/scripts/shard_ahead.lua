-- How many of a shard's admissions came before a time, and how many of its members have their result (docs/
-- architecture.md, "Stock shards"): a member's position adds these up over every shard. Admissions of the same
-- microsecond on two shards are published lower shard first (ShardOrder), so a shard below the member's home counts
-- them as before (ARGV 2 '1'), the others not.
-- The places a fair start's draw holds on the shard and has not written in yet come before every admission after it.
-- KEYS: 1 times, 2 done, 3 stock   ARGV: 1 time (us), 2 '1' to count the admissions of that time too
-- Returns {admitted before the time, admitted in all, done, places the draw holds}
local upto = ARGV[2] == '1' and ARGV[1] or ('(' .. ARGV[1])
return {redis.call('ZCOUNT', KEYS[1], '-inf', upto), redis.call('ZCARD', KEYS[1]),
  tonumber(redis.call('GET', KEYS[2]) or '0'), tonumber(redis.call('HGET', KEYS[3], 'held') or '0')}
