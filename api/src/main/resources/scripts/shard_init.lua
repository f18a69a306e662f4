-- Stock shards (docs/architecture.md, "Stock shards"): one shard's initial share of the event's stock, set once. A
-- shard's cap is share + moved: what it was dealt, plus what transfers brought in, minus what it gave away. Setting
-- share only when absent means a second mirror never deals the stock again over transfers already made.
-- KEYS: 1 the shard's stock hash   ARGV: 1 share, 2 the event's total
redis.call('HSETNX', KEYS[1], 'share', ARGV[1])
redis.call('HSETNX', KEYS[1], 'moved', 0)
redis.call('HSETNX', KEYS[1], 'moves', 0)
redis.call('HSETNX', KEYS[1], 'total', ARGV[2])
return {tonumber(redis.call('HGET', KEYS[1], 'share'))}
