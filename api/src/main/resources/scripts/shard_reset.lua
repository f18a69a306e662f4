-- Stock shards (docs/architecture.md, "Stock shards"): the stock hash of a shard of an event whose shard count was
-- changed before it opened is removed, so that an instance still asking with the old count finds no stock there
-- (shard_admit.lua answers 0: it asks the event again) instead of admitting on a shard the event no longer has.
-- Removed only while the shard has admitted nobody (a shard count never changes once members hold places), and only
-- by a mirror of a version at least the shard's: the hash keeps that version (and nothing else), so a slower mirror
-- of an older snapshot can neither reset nor deal it again (shard_init.lua).
-- The shard's part of an eligibility list loaded for the old count goes too (a part loaded for the new count, on a tag
-- both counts share, or shard 0's list, stays: the mirror loaded the new count's parts before this reset).
-- KEYS: 1 the shard's stock hash, 2 its queue, 3 its part of the list, 4 that part's version
-- ARGV: 1 the version of the MySQL row the mirror read, 2 the old shard count
-- Returns 1 when removed (or already absent), 0 when the shard holds admissions, 2 when it holds a newer version
-- (nothing removed either way).
local stored = tonumber(redis.call('HGET', KEYS[1], 'version') or '-1')
if stored > tonumber(ARGV[1]) then
  return 2
end
if redis.call('ZCARD', KEYS[2]) > 0 then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'version', ARGV[1])
if string.match(redis.call('GET', KEYS[4]) or '', '/(%d+)$') == ARGV[2] then
  redis.call('DEL', KEYS[3], KEYS[4])
end
return 1
