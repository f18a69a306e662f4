-- Both rate limits of a request in one round trip, as GCRA (the generic cell rate algorithm: a token bucket kept as
-- one number, the theoretical arrival time of the next request, in microseconds of Redis' own clock).
--
-- KEYS[1] the member's limit, KEYS[2] the address's limit
-- ARGV[1] member: requests per second (0: off), ARGV[2] member: burst (requests at once)
-- ARGV[3] address: requests per second (0: off), ARGV[4] address: burst
--
-- Returns {0, 0} when allowed (both limits charged), or {scope, wait in ms} when refused (scope 1: member,
-- 2: address; when both refuse, the one with the longer wait), and then nothing is charged: a refused request does
-- not use up the member's allowance. A value that is not a number (another program's key) counts as a full bucket.
-- The two keys are unrelated, so on a Redis Cluster they would be in different slots: the api needs a standalone Redis
-- (or one primary), as its other scripts do.
if redis.replicate_commands then
  redis.replicate_commands()
end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])

local charges = {}
local refused, longest = 0, 0
for i = 1, 2 do
  local rate = tonumber(ARGV[2 * i - 1])
  if rate > 0 then
    local interval = 1000000 / rate
    local burst = tonumber(ARGV[2 * i])
    local tat = tonumber(redis.call('GET', KEYS[i])) or 0
    if tat < now then
      tat = now
    end
    local next_tat = tat + interval
    local allowed_at = next_tat - burst * interval
    if allowed_at > now then
      local wait = math.ceil((allowed_at - now) / 1000)
      if wait > longest then
        refused, longest = i, wait
      end
    else
      charges[#charges + 1] = {KEYS[i], next_tat}
    end
  end
end
if refused > 0 then
  return {refused, longest}
end
for _, charge in ipairs(charges) do
  -- the key means nothing once the bucket is full again: it expires then
  redis.call('SET', charge[1], string.format('%.0f', charge[2]), 'PX', math.ceil((charge[2] - now) / 1000) + 1)
end
return {0, 0}
