-- Records the outcome of a coupon's requests for status reads, once per member.
-- KEYS[1] = {cpn:ID}:result (hash: member -> "I:<walletCouponId>" | "F:<reason>")
-- KEYS[2] = {cpn:ID}:done   (counter of members with a result)
-- KEYS[3] = {cpn:ID}:retired (set for a while when the event was retired: a replayed record then writes nothing,
--           so it cannot bring keys of a retired event back; MySQL answers for it)
-- ARGV    = member1, value1, member2, value2, ...
-- A member already in the hash keeps its first value and is not counted again, so replays never double-count.
-- Returns how many members were new.
if redis.call('EXISTS', KEYS[3]) == 1 then
  return 0
end
local added = 0
for i = 1, #ARGV, 2 do
  if redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) == 1 then
    redis.call('INCR', KEYS[2])
    added = added + 1
  end
end
return added
