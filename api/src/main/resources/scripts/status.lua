-- One member's request, read in one step.
-- KEYS: 1 meta, 2 queue, 3 result, 4 done       ARGV: 1 member id
-- Returns {found (0/1), sequence, result or '', done, rate, meta present (0/1)}
local seq = redis.call('ZSCORE', KEYS[2], ARGV[1])
local result = redis.call('HGET', KEYS[3], ARGV[1])
local done = tonumber(redis.call('GET', KEYS[4]) or '0')
local rate = tonumber(redis.call('HGET', KEYS[1], 'rate') or '0')
local metaPresent = redis.call('EXISTS', KEYS[1])
if not seq and not result then
  return {0, 0, '', done, rate, metaPresent}
end
return {1, tonumber(seq or '0'), result or '', done, rate, metaPresent}
