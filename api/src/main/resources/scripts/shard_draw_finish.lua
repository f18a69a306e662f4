-- Marks a fair start's draw made on one shard, once every member it placed at home here is queued (ShardDraws): its
-- entrants learn their outcome from now on; places a member could not take (already queued) are no longer held.
-- KEYS: 1 stock
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'drawn', 1)
  redis.call('HDEL', KEYS[1], 'held')
end
return {1}
