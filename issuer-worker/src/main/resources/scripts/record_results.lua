-- Records the outcome of a coupon's requests for status reads, once per member.
-- KEYS[1] = {cpn:ID}:result (hash: member -> "I:<walletCouponId>" | "F:<reason>")
-- KEYS[2] = {cpn:ID}:done   (counter of members with a result)
-- ARGV    = member1, value1, member2, value2, ...
-- A member already in the hash keeps its first value and is not counted again, so replays never double-count.
-- Returns how many members were new.
local added = 0
for i = 1, #ARGV, 2 do
  if redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) == 1 then
    redis.call('INCR', KEYS[2])
    added = added + 1
  end
end
return added
