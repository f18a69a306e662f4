-- The gate's settings (issue 26) written into a hash for gate.lua: mirror.lua's ARGV[14] into the event's meta, and
-- shard_init.lua's into each stock shard's hash. Put in front of both. The argument is GateSettings.mirrorArg's:
-- elig, eligMode, eligN, human, bits, then the claim rules, separated by '\r'; '' (or nil) writes nothing.
local function gate_settings(key, arg)
  if not arg or arg == '' then
    return
  end
  local g, from = {}, 1
  for i = 1, 5 do
    local at = string.find(arg, '\r', from, true)
    g[i] = string.sub(arg, from, at - 1)
    from = at + 1
  end
  redis.call('HSET', key, 'elig', g[1], 'eligMode', g[2], 'eligN', g[3], 'human', g[4], 'bits', g[5],
    'claims', string.sub(arg, from))
end

