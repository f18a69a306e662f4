-- Marks a RANDOMIZED_START event's draw made, once every member it placed is in the queue, while the caller holds the
-- draw's lease: from now on admit.lua and status.lua answer the draw's members from the queue (placed) or as left out
-- (FAILED SOLD_OUT), and the drainer publishes the placed members first. Places a member could not take (already
-- queued) are no longer held.
-- KEYS: 1 meta, 2 the draw's lease       ARGV: 1 token
-- Returns 1, or -1 when the caller no longer holds the lease (nothing written).
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return -1
end
redis.call('HSET', KEYS[1], 'drawn', '1')
redis.call('HDEL', KEYS[1], 'held')
return 1
