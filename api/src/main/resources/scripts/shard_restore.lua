-- Writes members MySQL knows of an event of K > 1 stock shards that Redis lost back on their home shard (docs/
-- architecture.md, "Stock shards", "Redis lost"), as restore_members.lua does for an event of one shard: each goes back
-- into the shard's queue with their first sequence, with the admission time 0 (before every admission made after the
-- restore: a position counts them ahead and done, so they cancel out), and their outcome as the worker writes it. A
-- member without an outcome (one a fair start's draw placed, not yet decided) gets their sequence as their time, so
-- that the drainer publishes them in the order of their places across shards, still before every later admission.
-- Idempotent: a page written twice changes nothing. The caller renewed the restore's lock (in shard 0's slot) just
-- before; nothing is written once the shard's retired mark stands.
-- KEYS: 1 queue, 2 times, 3 result, 4 the shard's retired mark   ARGV: member, sequence, result triples
-- Returns how many members were new in the queue, or -1 for a retired event (nothing written).
if redis.call('EXISTS', KEYS[4]) == 1 then
  return -1
end
local added = 0
for i = 1, #ARGV, 3 do
  added = added + redis.call('ZADD', KEYS[1], 'NX', ARGV[i + 1], ARGV[i])
  redis.call('ZADD', KEYS[2], 'NX', ARGV[i + 2] == '' and ARGV[i + 1] or 0, ARGV[i])
  if ARGV[i + 2] ~= '' then
    redis.call('HSETNX', KEYS[3], ARGV[i], ARGV[i + 2])
  end
end
return added
