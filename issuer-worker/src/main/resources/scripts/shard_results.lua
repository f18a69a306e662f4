-- Records the outcome of requests of an event whose stock is in shards, on each member's home shard, for status reads
-- (docs/architecture.md, "Stock shards"), once per member, as record_results.lua does for an event of one shard.
-- KEYS: 1 the shard's results (member -> "I:<walletCouponId>" | "F:<reason>"), 2 its done counter, 3 its retired mark
--       (a replayed record then writes nothing), 4 its stock hash (the shard is mirrored while it exists), 5 its stats,
--       6 its queue, 7 its admission times, 8 its cursor
-- ARGV: write ms ('' for none: given on shard 0 alone, whose stats the drainer reads), now (epoch ms), member1,
--       value1, sequence1, member2, value2, sequence2, ...
-- A member already in the hash keeps its first value and is not counted again, so replays never double-count.
-- A member missing from their home shard's queue was published before Redis lost the shard, and was not decided in
-- MySQL when the restore put the others back: they go back into the queue with their sequence (below every admission
-- made since, and below the cursor, which moves past them) and time 0, so that asking again answers "asked before".
-- The restore left their place out of every shard's stock (the meta's base counts it): the shard's cap takes it back
-- ('moved' + 1) and the shard counts it ('back' + 1: the event's admissions are the base less every shard's back,
-- plus the queues), in this one step. While the stock hash is missing (a restore in progress) only the queue entry and
-- time are written: the restore counts the queue when it deals.
-- A member who asked again after the restore, before this request was decided, holds a second place: their request
-- was published before the loss (its sequence at most the shard's 'restored', the publications the restore knew) and
-- their place was taken since (a time above 0: the restore puts members back at time 0). Their first admission is in
-- the base and their second in the queue: the shard's cap takes one place back ('moved' + 1) and counts it ('again'
-- + 1: the event's admissions are the base less every shard's back and again, plus the queues), so the event counts
-- them once and one more member can be admitted. The second request is a no-op in MySQL.
-- write_latency.lua is put in front. Returns {members new, members put back into the queue on a mirrored shard}.
if redis.call('EXISTS', KEYS[3]) == 1 then
  return {0, 0}
end
local mirrored = redis.call('EXISTS', KEYS[4]) == 1
if ARGV[1] ~= '' and mirrored then
  record_write_latency(KEYS[5], ARGV[1], ARGV[2])
end
local added, back = 0, 0
local restored = mirrored and tonumber(redis.call('HGET', KEYS[4], 'restored') or '0') or 0
for i = 3, #ARGV, 3 do
  local member = ARGV[i]
  local first = redis.call('HSETNX', KEYS[1], member, ARGV[i + 1]) == 1
  if first then
    redis.call('INCR', KEYS[2])
    added = added + 1
  end
  local queued = redis.call('ZSCORE', KEYS[6], member)
  if queued then
    if first and tonumber(ARGV[i + 2]) <= restored and tonumber(redis.call('ZSCORE', KEYS[7], member) or '0') > 0 then
      redis.call('HINCRBY', KEYS[4], 'moved', 1)
      redis.call('HINCRBY', KEYS[4], 'again', 1)
    end
  else
    local seq = ARGV[i + 2]
    if not mirrored then
      redis.call('ZADD', KEYS[6], seq, member)
      redis.call('ZADD', KEYS[7], 'NX', 0, member)
    else
      local below = redis.call('ZCOUNT', KEYS[6], '-inf', '(' .. seq)
      local cursor = tonumber(redis.call('GET', KEYS[8]) or '0')
      if below <= cursor then
        redis.call('ZADD', KEYS[6], seq, member)
        redis.call('ZADD', KEYS[7], 'NX', 0, member)
        redis.call('INCR', KEYS[8])
        redis.call('HINCRBY', KEYS[4], 'moved', 1)
        redis.call('HINCRBY', KEYS[4], 'back', 1)
        back = back + 1
      end
    end
  end
end
return {added, back}
