-- Gives a lock back only if the caller still holds it: a restore's ({cpn:ID}:restoring) when the restore failed, so
-- that the next request can run it again at once instead of waiting for the lock to expire; a draw's lease
-- ({cpn:ID}:drawing) once the draw job is done with it.
-- KEYS: 1 the lock       ARGV: 1 token
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
