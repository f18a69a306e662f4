-- Rate limits as GCRA (the generic cell rate algorithm): a token bucket kept as one number per key, the theoretical
-- arrival time of the next request, in microseconds of Redis' own clock. This file is put in front of every script
-- that charges limits (LuaScripts.withLimits): admit.lua and status.lua check and charge a member's and an address's
-- limit in the same step as the request's own work, on keys in the coupon's hash slot, so that an admission is one
-- round trip and one slot, on a Redis Cluster too; ratelimit.lua charges them alone.
--
-- check_limits(first_key, first_arg, count): KEYS[first_key ..] are the limits' keys; ARGV[first_arg ..] their
-- requests per second (0: off) and bursts, two values per limit. Returns 0, 0 when every limit allows the request, and
-- then charges them all; otherwise the refusing limit's position (1 = the first) and the wait in ms (the longer wait
-- when several refuse), charging nothing: a refused request uses up nobody's allowance. A value that is not a number
-- (another program's key) counts as a full bucket.
local function check_limits(first_key, first_arg, count)
  local charges = {}
  local refused, longest = 0, 0
  local now = nil
  for i = 0, count - 1 do
    local rate = tonumber(ARGV[first_arg + 2 * i]) or 0
    if rate > 0 then
      if not now then
        local clock = redis.call('TIME')
        now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
      end
      local key = KEYS[first_key + i]
      local interval = 1000000 / rate
      local burst = tonumber(ARGV[first_arg + 2 * i + 1])
      local tat = tonumber(redis.call('GET', key)) or 0
      if tat < now then
        tat = now
      end
      local next_tat = tat + interval
      local allowed_at = next_tat - burst * interval
      if allowed_at > now then
        local wait = math.ceil((allowed_at - now) / 1000)
        if wait > longest then
          refused, longest = i + 1, wait
        end
      else
        charges[#charges + 1] = {key, next_tat}
      end
    end
  end
  if refused > 0 then
    return refused, longest
  end
  for _, charge in ipairs(charges) do
    -- the key means nothing once the bucket is full again: it expires then
    redis.call('SET', charge[1], string.format('%.0f', charge[2]), 'PX', math.ceil((charge[2] - now) / 1000) + 1)
  end
  return 0, 0
end

