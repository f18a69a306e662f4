-- Puts the gate's counts saved in MySQL back into Redis (GateMirror, before the meta is written): after a Redis loss
-- they go on from what was saved instead of from zero. Idempotent, so it runs whenever the gate is mirrored: a count
-- is raised to the saved one, never lowered, and a saved HyperLogLog is merged into Redis' (a union: members counted
-- before and after a loss count once). A retired event gets nothing back: its keys would never be removed again.
-- KEYS: 1 retired mark, 2 stats, 3 wouldRefuse:list, 4 wouldRefuse:claims, 5 a scratch key (gone when this returns)
-- ARGV: 1-3 the saved refusals by list, claims, proof; 4-5 the saved HyperLogLogs of the list and claims ('' none)
-- Returns 1, or 0 for a retired event (nothing written).
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
local fields = {'refusedList', 'refusedClaims', 'refusedProof'}
for i = 1, 3 do
  local saved = tonumber(ARGV[i])
  if saved > 0 and tonumber(redis.call('HGET', KEYS[2], fields[i]) or '0') < saved then
    redis.call('HSET', KEYS[2], fields[i], saved)
  end
end
for i = 4, 5 do
  if ARGV[i] ~= '' then
    redis.call('SET', KEYS[5], ARGV[i])
    redis.call('PFMERGE', KEYS[i - 1], KEYS[5])
    redis.call('DEL', KEYS[5])
  end
end
return 1
