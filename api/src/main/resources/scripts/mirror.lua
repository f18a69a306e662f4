-- Mirrors a coupon's settings from MySQL (the system of record) into Redis.
-- KEYS: 1 meta, 2 queue, 3 seq, 4 cursor, 5 retired mark, 6 done, 7 result, 8 restoring (a restore's lock)
-- ARGV: 1 name, 2 total, 3 openAt, 4 closeAt (0 = none), 5 closed (0/1), 6 rate,
--       7 published: admissions MySQL knows were handed to Kafka, used only when Redis lost the coupon entirely,
--       8 version of the MySQL row this snapshot was read from,
--       9 known: what MySQL knows of the coupon's admissions (published, seen by the drainer, decided); when Redis
--         lost the coupon and this is not 0, the restore runs first (restore_members.lua puts the decided members
--         back, the api counts the admissions lost) and only the holder of the restoring lock writes the meta,
--       10 the caller's restoring token ('' when it holds none),
--       11 drawAt: when a RANDOMIZED_START event draws its window's members (epoch ms), 0 for FIFO (draw.lua),
--       12 '1' when MySQL recorded that event's draw (it is made: a Redis that lost the coupon must not close the
--          window again on an empty draw; the members it left out are answered from MySQL), else '0'
--       13 announceAt: from when members may see the event (epoch ms), 0 when they always may (admit.lua answers
--          outcome 9 before it, coupon_state.lua returns it)
--       14 the gate (issue 26, gate.lua), when given: elig, eligMode, eligN, human, bits, claims, separated by '\r'
--       15 the event's stock shards (docs/architecture.md, "Stock shards"; '1' when not given): above 1, admit.lua sends
--          its members to their home shard
-- Returns 1 when the coupon was already mirrored (and is now updated), 0 when this call restored (or created) it,
--         2 when Redis holds a newer version (a stale snapshot: nothing written, so a close is never undone),
--         3 when the event is retired (nothing written: a retired event never comes back into Redis),
--         4 when another caller is restoring the coupon (nothing written: ask again shortly),
--         5 when Redis lost the coupon and MySQL knows admissions of it: nothing written, restore first.
if redis.call('EXISTS', KEYS[5]) == 1 then
  return 3
end
local stored = redis.call('HGET', KEYS[1], 'version')
if stored and tonumber(stored) > tonumber(ARGV[8]) then
  return 2
end
local existed = redis.call('EXISTS', KEYS[1])
local lost = existed == 0 and redis.call('EXISTS', KEYS[3]) == 0 and redis.call('EXISTS', KEYS[4]) == 0
if lost then
  -- Nothing of the admissions survived (or the coupon is new). The meta is written last, only once every member
  -- MySQL knows is back in the queue: until then admission finds no meta and goes through the restore.
  local token = ARGV[10] or ''
  local lock = redis.call('GET', KEYS[8])
  if lock and lock ~= token then
    return 4
  end
  if token == '' and tonumber(ARGV[9]) > 0 then
    return 5
  end
end
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'total', ARGV[2], 'openAt', ARGV[3], 'closeAt', ARGV[4],
  'closed', ARGV[5], 'rate', ARGV[6], 'version', ARGV[8], 'drawAt', ARGV[11] or '0', 'announceAt', ARGV[13] or '0',
  'shards', ARGV[15] or '1')
if ARGV[12] == '1' then
  redis.call('HSET', KEYS[1], 'drawn', '1')
end
-- gate (issue 26): the eligibility rules and the human check, split from ARGV[14] (gate_settings.lua, in front)
gate_settings(KEYS[1], ARGV[14])
if lost then
  -- The queue holds the members MySQL decided (restored, or recorded by the worker meanwhile), all published:
  -- they stand below the cursor, base counts the other published admissions once (the stock floor), and the
  -- sequence goes on above every sequence handed out before, so new members queue after them.
  local queued = redis.call('ZCARD', KEYS[2])
  local top = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
  local published = math.max(tonumber(ARGV[7]), queued, tonumber(top[2] or '0'))
  redis.call('HSET', KEYS[1], 'base', published - queued)
  redis.call('SET', KEYS[3], published)
  -- The cursor stands at the first member without a result (decided_cursor.lua, put in front).
  redis.call('SET', KEYS[4], decided_cursor(KEYS[2], KEYS[7], queued))
  -- Positions count from what is decided: every decided member has its result in the hash.
  redis.call('SET', KEYS[6], redis.call('HLEN', KEYS[7]))
  redis.call('DEL', KEYS[8])
  return 0
end
if existed == 0 then
  -- Only the meta was lost: the queue, sequence and cursor stand as they are.
  redis.call('HSETNX', KEYS[1], 'base', 0)
end
return existed
