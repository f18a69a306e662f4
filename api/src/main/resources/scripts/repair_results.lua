-- Puts back results that MySQL has and Redis lost: the worker wrote them on a Redis primary that died before its
-- replica had them (a failover), after the batch's offsets were committed, so no replay brings them. Each member gets
-- its result if it has none; then done is set to what it counts, the members with a result (as mirror.lua does after
-- a restore). Idempotent. A retired event is left alone: MySQL answers for it.
-- A member put back here whose queue entry has another sequence than the one MySQL decided was admitted again after a
-- restore (its first admission is counted in the meta's base): it leaves base, exactly as record_results.lua does for
-- the worker, and only for the call that writes its result first, so that whichever of the two comes first counts it
-- once and the event's admissions can settle.
-- KEYS: 1 result, 2 done, 3 retired, 4 meta, 5 queue, and for a shard of an event in several: its own five, its
--       stock hash in place of the meta, and 6 its admission times
-- ARGV: member, value, sequence triples (as the worker writes the value; the sequence MySQL decided)
-- Returns how many results were missing.
if redis.call('EXISTS', KEYS[3]) == 1 then
  return 0
end
local added = 0
for i = 1, #ARGV, 3 do
  local member = ARGV[i]
  if redis.call('HSETNX', KEYS[1], member, ARGV[i + 1]) == 1 then
    added = added + 1
    local queued = redis.call('ZSCORE', KEYS[5], member)
    if queued and KEYS[6] then
      -- a shard: as shard_results.lua, a request published before a whole loss (its sequence at most 'restored')
      -- whose member holds a place taken since (a time above 0) gives that shard's cap a place back, counted 'again'
      if tonumber(ARGV[i + 2]) <= tonumber(redis.call('HGET', KEYS[4], 'restored') or '0')
          and tonumber(redis.call('ZSCORE', KEYS[6], member) or '0') > 0 then
        redis.call('HINCRBY', KEYS[4], 'moved', 1)
        redis.call('HINCRBY', KEYS[4], 'again', 1)
      end
    elseif queued and tonumber(queued) ~= tonumber(ARGV[i + 2])
        and tonumber(redis.call('HGET', KEYS[4], 'base') or '0') > 0 then
      redis.call('HINCRBY', KEYS[4], 'base', -1)
    end
  end
end
redis.call('SET', KEYS[2], redis.call('HLEN', KEYS[1]))
return added
