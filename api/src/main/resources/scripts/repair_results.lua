-- Puts back results that MySQL has and Redis lost: the worker wrote them on a Redis primary that died before its
-- replica had them (a failover), after the batch's offsets were committed, so no replay brings them. Each member gets
-- its result if it has none; then done is set to what it counts, the members with a result (as mirror.lua does after
-- a restore). Idempotent. A retired event is left alone: MySQL answers for it.
-- KEYS: 1 result, 2 done, 3 retired       ARGV: member, value pairs (the value as the worker writes it)
-- Returns how many results were missing.
if redis.call('EXISTS', KEYS[3]) == 1 then
  return 0
end
local added = 0
for i = 1, #ARGV, 2 do
  added = added + redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('SET', KEYS[2], redis.call('HLEN', KEYS[1]))
return added
