-- Charges a request to its limits and nothing else (check_limits, limits.lua, is put in front of this file).
-- KEYS: the limits' keys, one slot (a coupon's, or one key alone)
-- ARGV: 1 'charge' or 'refund', then requests per second and burst of each key
-- charge: returns {0, 0} when allowed (every limit charged), or {position of the refusing key (1-based), wait in ms},
--   charging nothing.
-- refund: gives back the charge of one earlier allowed request to each key whose limit is on (the request was refused
--   by a limit checked after these, in another slot), so that a refused request uses up nothing; returns {0, 0}.
if ARGV[1] == 'refund' then
  for i = 1, #KEYS do
    local rate = tonumber(ARGV[2 * i]) or 0
    local tat = tonumber(redis.call('GET', KEYS[i]))
    if rate > 0 and tat then
      local ttl = redis.call('PTTL', KEYS[i])
      local interval = 1000000 / rate
      if ttl > 0 and ttl > interval / 1000 then
        redis.call('SET', KEYS[i], string.format('%.0f', tat - interval), 'PX', math.ceil(ttl - interval / 1000))
      else
        redis.call('DEL', KEYS[i])
      end
    end
  end
  return {0, 0}
end
local refused, wait = check_limits(1, 2, #KEYS)
return {refused, wait}
