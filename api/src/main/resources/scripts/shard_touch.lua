-- A write on a donor's slot before a recovery's replica wait (docs/architecture.md, "Stock shards"): a WAIT covers
-- what its own connection wrote, and the give being recovered may have been written by another instance. Writes the
-- escrow entry again as it is (nothing when it is gone). KEYS: 1 escrow   ARGV: 1 transfer id
local entry = redis.call('HGET', KEYS[1], ARGV[1])
if entry then
  redis.call('HSET', KEYS[1], ARGV[1], entry)
end
return {entry and 1 or 0}
