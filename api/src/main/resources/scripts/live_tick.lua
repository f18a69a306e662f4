-- One coupon's progress for its open status streams, read once per tick however many streams there are.
-- KEYS: 1 meta, 2 done, 3 result, 4 queue, 5 the draw (draw.lua)
-- ARGV: 1 n, then n members to look up the result of (streams whose turn has passed by the last tick), then members
--       waiting for a RANDOMIZED_START event's draw whose time has come
-- Returns {done, rate, the result of each of the n members or '', then for each member of the draw: their sequence
--          once the draw placed them, -1 once it left them out, 0 while it has not taken place}
local done = tonumber(redis.call('GET', KEYS[2]) or '0')
local meta = redis.call('HMGET', KEYS[1], 'rate', 'drawn')
local reply = {done, tonumber(meta[1] or '0')}
local n = tonumber(ARGV[1] or '0')
if n > 0 then
  local results = redis.call('HMGET', KEYS[3], unpack(ARGV, 2, n + 1))
  for i = 1, n do
    reply[#reply + 1] = results[i] or ''
  end
end
for i = n + 2, #ARGV do
  local seq = redis.call('ZSCORE', KEYS[4], ARGV[i])
  if seq then
    reply[#reply + 1] = tonumber(seq)
  elseif meta[2] == '1' then
    reply[#reply + 1] = -1
  else
    reply[#reply + 1] = 0
  end
end
return reply
