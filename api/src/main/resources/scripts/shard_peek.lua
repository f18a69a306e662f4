-- What a shard has to publish next (docs/architecture.md, "Stock shards"): up to n queue entries after the cursor,
-- each with its admission time, and the shard's clock now. An admission made on this shard after this script has a
-- time at or after that clock: the drainer publishes across shards only up to the earliest of the shards' clocks.
-- KEYS: 1 queue, 2 times, 3 cursor, 4 done, 5 stats, 6 escrow, 7 stock   ARGV: 1 n, 2 '1' to write the cursor as it is (so that a replica WAIT
-- on the drainer's connection then covers every admission the shard's primary took before this call; only while the
-- shard's stock exists, so a read racing the event's retirement never brings a key back)
-- Returns {now (us), cursor, admitted, done, refused as sold out, transfers in escrow, members a restore's base
-- counted that came back here ('back', shard_results.lua), members the base counted who hold a second place here
-- ('again', shard_results.lua), member 1, sequence 1, time 1, member 2, ...}
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local cursor = tonumber(redis.call('GET', KEYS[3]) or '0')
local reply = {now, cursor, redis.call('ZCARD', KEYS[1]), tonumber(redis.call('GET', KEYS[4]) or '0'),
  tonumber(redis.call('HGET', KEYS[5], 'rejectedSoldOut') or '0'), redis.call('HLEN', KEYS[6]),
  tonumber(redis.call('HGET', KEYS[7], 'back') or '0'), tonumber(redis.call('HGET', KEYS[7], 'again') or '0')}
if ARGV[2] == '1' and redis.call('EXISTS', KEYS[7]) == 1 then
  redis.call('SET', KEYS[3], cursor)
end
local n = tonumber(ARGV[1])
-- a fair start's draw not written into this shard yet: nothing of it is published, whatever the meta's clock said
local draw = redis.call('HMGET', KEYS[7], 'drawAt', 'drawn')
if (tonumber(draw[1] or '0') or 0) > 0 and draw[2] ~= '1' then
  n = 0
end
if n <= 0 then
  return reply
end
local entries = redis.call('ZRANGE', KEYS[1], cursor, cursor + n - 1, 'WITHSCORES')
for i = 1, #entries, 2 do
  reply[#reply + 1] = entries[i]
  reply[#reply + 1] = tonumber(entries[i + 1])
  reply[#reply + 1] = tonumber(redis.call('ZSCORE', KEYS[2], entries[i]) or '0')
end
return reply
