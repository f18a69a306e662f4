-- Replaces an event's eligibility list (or, for K > 1 shards, one shard's part) with a load's set (GateMirror), unless
-- Redis holds a later generation, or this one for the same count already (and the list itself), or the event retired
-- while it loaded (retire.lua removed its keys: they must not come back, never to go). A part of K > 1 shards gets the
-- member '' too, so that it exists even when none of the list's members has its home there (gate.lua then knows it is
-- loaded).
-- KEYS: 1 the list, 2 its version, 3 the load's set, 4 the retired mark
-- ARGV: 1 the load's generation, 2 the shard count
-- Returns 1 replaced, 0 a newer one was there, 2 retired (the load's set dropped).
if redis.call('EXISTS', KEYS[4]) == 1 then
  redis.call('DEL', KEYS[3])
  return 2
end
local generation, shards = string.match(redis.call('GET', KEYS[2]) or '0', '^(%d+)/?(%d*)$')
generation = tonumber(generation or '0')
local load = tonumber(ARGV[1])
-- a later upload is there: never replaced by an older one; the same one is replaced only when it was loaded for
-- another count or its list is gone (lost alone: a version whose list is gone holds nothing)
if generation > load or (generation == load and (shards == '' and '1' or shards) == ARGV[2]
    and redis.call('EXISTS', KEYS[1]) == 1) then
  redis.call('DEL', KEYS[3])
  return 0
end
if ARGV[2] ~= '1' then
  redis.call('SADD', KEYS[3], '')
end
if redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('RENAME', KEYS[3], KEYS[1])
  -- the load's set expires if its loader dies; the list it becomes must not
  redis.call('PERSIST', KEYS[1])
else
  redis.call('DEL', KEYS[1])
end
redis.call('SET', KEYS[2], ARGV[2] == '1' and ARGV[1] or (ARGV[1] .. '/' .. ARGV[2]))
return 1
