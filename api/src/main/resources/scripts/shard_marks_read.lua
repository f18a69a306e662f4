-- The publication marks of some shards of an event (shard_marks.lua), read by the deal of a shard lost alone.
-- KEYS: 1 meta   ARGV: 1 the shard count, then shard indexes
-- Returns one mark per shard asked, -1 where the meta has none.
local marks = {}
for i = 2, #ARGV do
  marks[#marks + 1] = tonumber(redis.call('HGET', KEYS[1], 'pub:' .. ARGV[1] .. ':' .. ARGV[i]) or '-1')
end
return marks
