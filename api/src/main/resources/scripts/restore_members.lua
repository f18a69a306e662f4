-- Writes one page of the members MySQL knows of a coupon Redis lost, while the caller holds the restore's lock:
-- each goes back into the queue with its first admission sequence and gets its outcome as the worker writes it, so a
-- member asking again is answered "asked before" (200) and their status reads as before. Idempotent: a page written
-- twice (a restore that died and was run again) changes nothing.
-- A member a recorded draw placed and that was never published comes with an empty result: queued, not decided.
-- Nothing is written once the event is retired (its mark, KEYS[4]): a restore that read the row just before the
-- retirement would otherwise leave queue and result keys that no pass ever removes.
-- KEYS: 1 queue, 2 result, 3 restoring, 4 retired       ARGV: 1 token, 2 lock ttl ms, then member, sequence, result
-- triples
-- Returns how many members were new in the queue, or -1 when the caller no longer holds the lock or the event was
-- retired (nothing written).
if redis.call('GET', KEYS[3]) ~= ARGV[1] or redis.call('EXISTS', KEYS[4]) == 1 then
  return -1
end
redis.call('PEXPIRE', KEYS[3], ARGV[2])
local added = 0
for i = 3, #ARGV, 3 do
  added = added + redis.call('ZADD', KEYS[1], 'NX', ARGV[i + 1], ARGV[i])
  if ARGV[i + 2] ~= '' then
    redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 2])
  end
end
return added
