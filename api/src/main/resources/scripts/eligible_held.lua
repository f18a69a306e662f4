-- Whether Redis holds an event's eligibility list as MySQL has it (GateMirror): of one shard, the whole list; of K
-- shards, this shard's part (its members' homes), called once per shard. The version key holds the list's generation,
-- followed by '/K' when it was loaded for K > 1 shards: a part loaded for another count is not held (a count changed
-- before the event opened deals the members again, and K = 1 needs the whole list back).
-- KEYS: 1 the list's version, 2 the list, 3 the retired mark
-- ARGV: 1 the generation, 2 the list's size (0: an empty list, which may have no key), 3 the shard count
-- Returns 1 held, 2 the event retired (its mark stands: nothing more to load), else 0 (load it).
if redis.call('EXISTS', KEYS[3]) == 1 then
  return 2
end
local generation, shards = string.match(redis.call('GET', KEYS[1]) or '0', '^(%d+)/?(%d*)$')
if tonumber(generation or '0') >= tonumber(ARGV[1]) and (shards == '' and '1' or shards) == ARGV[3]
    and (ARGV[2] == '0' or redis.call('EXISTS', KEYS[2]) == 1) then
  return 1
end
return 0
