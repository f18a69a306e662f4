-- Records the outcome of a coupon's requests for status reads, once per member.
-- KEYS[1] = {cpn:ID}:result (hash: member -> "I:<walletCouponId>" | "F:<reason>")
-- KEYS[2] = {cpn:ID}:done   (counter of members with a result)
-- KEYS[3] = {cpn:ID}:retired (set for a while when the event was retired: a replayed record then writes nothing,
--           so it cannot bring keys of a retired event back; MySQL answers for it)
-- KEYS[4] = {cpn:ID}:meta, KEYS[5] = {cpn:ID}:queue, KEYS[6] = {cpn:ID}:cursor, KEYS[7] = {cpn:ID}:stats
-- ARGV    = write ms ('' for none), now (epoch ms), member1, value1, sequence1, member2, value2, sequence2, ...
-- The write time (the MySQL transaction of these decisions) goes, smoothed, to the stats hash's writeMs, with
-- writeAt = now: the api's drainer cuts the coupon's effective rate when it passes a bound. Only while the meta
-- exists, so a missing or retired event gets no key back.
-- A member already in the hash keeps its first value and is not counted again, so replays never double-count.
-- A member missing from the queue was published before Redis lost its data and restored it from MySQL: it goes back
-- into the queue with its sequence, so that asking again answers "asked before" instead of admitting it twice. It was
-- published already, so it stands below the cursor (the cursor moves past it) and leaves the stock floor `base` (it
-- is counted in the queue now). While the meta is missing (a restore in progress) only the queue entry is written:
-- the restore counts the queue when it ends. A member whose sequence would land above the cursor (possible only when
-- MySQL's published figure lagged) is left out of the queue: its status still answers from the result. A member
-- admitted again after the restore (in the queue with a later sequence) leaves base when its first result comes, so
-- the event's admissions count it once and it can settle.
-- write_latency.lua is put in front. Returns how many members were new.
if redis.call('EXISTS', KEYS[3]) == 1 then
  return 0
end
local mirrored = redis.call('EXISTS', KEYS[4]) == 1
if mirrored and ARGV[1] ~= '' then
  record_write_latency(KEYS[7], ARGV[1], ARGV[2])
end
local added = 0
for i = 3, #ARGV, 3 do
  local member = ARGV[i]
  local seq = ARGV[i + 2]
  local first = redis.call('HSETNX', KEYS[1], member, ARGV[i + 1]) == 1
  if first then
    redis.call('INCR', KEYS[2])
    added = added + 1
  end
  local queued = redis.call('ZSCORE', KEYS[5], member)
  if not queued then
    if not mirrored then
      redis.call('ZADD', KEYS[5], seq, member)
    else
      local below = redis.call('ZCOUNT', KEYS[5], '-inf', '(' .. seq)
      local cursor = tonumber(redis.call('GET', KEYS[6]) or '0')
      if below <= cursor then
        redis.call('ZADD', KEYS[5], seq, member)
        redis.call('INCR', KEYS[6])
        if tonumber(redis.call('HGET', KEYS[4], 'base') or '0') > 0 then
          redis.call('HINCRBY', KEYS[4], 'base', -1)
        end
      end
    end
  elseif first and mirrored and tonumber(queued) ~= tonumber(seq) then
    -- Asked again after the restore, before this outcome was recorded: admitted a second time, while the first
    -- admission (the one decided) is counted in base. Counted once from now on; the second request is a no-op in MySQL.
    if tonumber(redis.call('HGET', KEYS[4], 'base') or '0') > 0 then
      redis.call('HINCRBY', KEYS[4], 'base', -1)
    end
  end
end
return added
