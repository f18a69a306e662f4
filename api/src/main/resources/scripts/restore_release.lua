-- Gives a restore's lock back when the restore failed, only if the caller still holds it, so that the next request
-- can run the restore again at once instead of waiting for the lock to expire.
-- KEYS: 1 restoring       ARGV: 1 token
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
