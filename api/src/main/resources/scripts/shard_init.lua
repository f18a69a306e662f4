-- Stock shards (docs/architecture.md, "Stock shards"): one shard's initial share of the event's stock, set once, and
-- the event's settings that admission on the shard reads (shard_admit.lua), written on every mirror. A shard's cap is
-- share + moved: what it was dealt, plus what transfers brought in, minus what it gave away. Setting share only when
-- absent means a second mirror never deals the stock again over transfers already made. gate_settings.lua is put in
-- front.
-- KEYS: 1 the shard's stock hash
-- ARGV: 1 share, 2 the event's total, 3 the version of the MySQL row the settings were read from, 4 the shard count,
--       5 openAt, 6 closeAt (0 = none), 7 closed (0/1), 8 rate, 9 announceAt (0 = none), 10 the gate (gate_settings.lua)
-- Returns {share}: the shard's share as it stands. Settings older than those the shard holds are not written (a
-- snapshot read before an operator's close never undoes it).
redis.call('HSETNX', KEYS[1], 'share', ARGV[1])
redis.call('HSETNX', KEYS[1], 'moved', 0)
redis.call('HSETNX', KEYS[1], 'moves', 0)
redis.call('HSETNX', KEYS[1], 'total', ARGV[2])
local stored = tonumber(redis.call('HGET', KEYS[1], 'version') or '-1')
if stored <= tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], 'version', ARGV[3], 'shards', ARGV[4], 'openAt', ARGV[5], 'closeAt', ARGV[6],
    'closed', ARGV[7], 'rate', ARGV[8], 'announceAt', ARGV[9])
  gate_settings(KEYS[1], ARGV[10])
end
return {tonumber(redis.call('HGET', KEYS[1], 'share'))}
