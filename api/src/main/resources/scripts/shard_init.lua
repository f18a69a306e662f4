-- Stock shards (docs/architecture.md, "Stock shards"): one shard's initial share of the event's stock, set once, and
-- the event's settings that admission on the shard reads (shard_admit.lua), written on every mirror. A shard's cap is
-- share + moved: what it was dealt, plus what transfers brought in, minus what it gave away. Setting share only when
-- absent means a second mirror never deals the stock again over transfers already made. gate_settings.lua is put in
-- front.
-- KEYS: 1 the shard's stock hash, 2 its queue, 3 (shard 0 only, dealt first) the event's meta
-- ARGV: 1 share, 2 the event's total, 3 the version of the MySQL row the settings were read from, 4 the shard count,
--       5 openAt, 6 closeAt (0 = none), 7 closed (0/1), 8 rate, 9 announceAt (0 = none), 10 the gate (gate_settings.lua),
--       11 after a Redis lost whole, the publications MySQL knew ('' otherwise): kept as 'restored' with the share,
--       in the same step, so that a request published before the loss tells the worker a member asking again since
--       holds a second place (shard_results.lua); 12 '1' on the first deal of the count (shard 0): the meta starts
--       counting each shard's publications ('pub:K:i', shard_marks.lua), which a shard lost alone later is dealt from;
--       13 for a shard lost alone, the admissions it had published that no member put back holds, as a negative
--       'back' (shard_results.lua raises it as they come back); 14 for a shard the deal found without a share, the
--       members it found in its queue: a member the worker put back since (while the shard had no stock hash, only
--       its queue entry is written) gets its place in the share and leaves what is known only as a count ('back' + 1),
--       as shard_results.lua does on a shard with stock; 15 the fair start's drawAt (epoch ms, 0 or absent: none;
--       shard_admit.lua keeps the window's entrants on the shard's draw until then), 16 '1' once MySQL recorded
--       the draw: the shard is marked drawn (a restore put the placed members back; nothing is held for it)
-- Returns {share}: the shard's share as it stands; {-1} when a newer mirror holds the shard (or, on shard 0, the meta). Nothing is written by a mirror older than the one the shard holds
-- (a snapshot read before an operator's close never undoes it; one read before a shard count changed never deals the
-- old count again after shard_reset.lua).
local stored = tonumber(redis.call('HGET', KEYS[1], 'version') or '-1')
if KEYS[3] then
  -- shard 0, in the meta's slot: a newer meta means a newer mirror is dealing
  stored = math.max(stored, tonumber(redis.call('HGET', KEYS[3], 'version') or '-1'))
end
if stored > tonumber(ARGV[3]) then
  -- a newer mirror dealt (or reset) this shard: nothing of this older one is written, and the api deals no further
  return {-1}
end
local late = 0
if ARGV[14] and ARGV[14] ~= '' then
  late = math.max(0, redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[14]))
end
if redis.call('HSETNX', KEYS[1], 'share', tonumber(ARGV[1]) + late) == 1 then
  if ARGV[11] and ARGV[11] ~= '' then
    redis.call('HSET', KEYS[1], 'restored', ARGV[11])
  end
  if ARGV[13] ~= '' or late > 0 then
    redis.call('HSET', KEYS[1], 'back', tonumber(ARGV[13] ~= '' and ARGV[13] or '0') + late)
  end
end
if KEYS[3] and ARGV[12] == '1' and redis.call('EXISTS', KEYS[3]) == 1 then
  for shard = 0, tonumber(ARGV[4]) - 1 do
    redis.call('HSETNX', KEYS[3], 'pub:' .. ARGV[4] .. ':' .. shard, 0)
  end
end
redis.call('HSETNX', KEYS[1], 'moved', 0)
redis.call('HSETNX', KEYS[1], 'moves', 0)
redis.call('HSETNX', KEYS[1], 'total', ARGV[2])
redis.call('HSET', KEYS[1], 'version', ARGV[3], 'shards', ARGV[4], 'openAt', ARGV[5], 'closeAt', ARGV[6],
  'closed', ARGV[7], 'rate', ARGV[8], 'announceAt', ARGV[9], 'drawAt', tonumber(ARGV[15] or '0') or 0)
if ARGV[16] == '1' then
  redis.call('HSET', KEYS[1], 'drawn', 1)
  redis.call('HDEL', KEYS[1], 'held')
end
gate_settings(KEYS[1], ARGV[10])
return {tonumber(redis.call('HGET', KEYS[1], 'share'))}
