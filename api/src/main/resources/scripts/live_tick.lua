-- One coupon's progress for its open status streams, read once per tick however many streams there are.
-- KEYS: 1 meta, 2 done, 3 result       ARGV: members to look up (streams whose turn has passed by the last tick)
-- Returns {done, rate, result of ARGV[1] or '', result of ARGV[2] or '', ...}
local done = tonumber(redis.call('GET', KEYS[2]) or '0')
local rate = tonumber(redis.call('HGET', KEYS[1], 'rate') or '0')
local reply = {done, rate}
if #ARGV > 0 then
  local results = redis.call('HMGET', KEYS[3], unpack(ARGV))
  for i = 1, #results do
    reply[i + 2] = results[i] or ''
  end
end
return reply
