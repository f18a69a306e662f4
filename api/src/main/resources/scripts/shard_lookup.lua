-- The results of some members of one shard (docs/architecture.md, "Stock shards"), for the live streams whose turn has
-- passed: the members' values in the shard's results ('' for none yet).
-- KEYS: 1 the shard's results   ARGV: the members
local values = redis.call('HMGET', KEYS[1], unpack(ARGV))
for i = 1, #ARGV do
  values[i] = values[i] or ''
end
return values
