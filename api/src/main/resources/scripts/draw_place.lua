-- Writes one page of the members a draw placed into the queue, with the sequences the window held for them, while the
-- caller holds the draw's lease. Idempotent: a member already queued keeps its sequence (a page written twice, by a
-- draw job that died and was run again, changes nothing), and 'held' (the places counted in the stock cap before they
-- are in the queue) comes down by the members really added.
-- KEYS: 1 meta, 2 queue, 3 the draw's lease       ARGV: 1 token, 2 lease ttl ms, then sequence, member pairs
-- Returns how many members were added, or -1 when the caller no longer holds the lease (nothing written).
if redis.call('GET', KEYS[3]) ~= ARGV[1] then
  return -1
end
redis.call('PEXPIRE', KEYS[3], ARGV[2])
local added = 0
for i = 3, #ARGV, 2 do
  added = added + redis.call('ZADD', KEYS[2], 'NX', ARGV[i], ARGV[i + 1])
end
if added > 0 then
  redis.call('HINCRBY', KEYS[1], 'held', -added)
end
return added
