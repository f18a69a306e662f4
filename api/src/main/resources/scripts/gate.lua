-- The gate (issue 26): who an event is for, and the human check, decided inside admit.lua's one step. Put in front of
-- admit.lua (AdmitScript). The meta carries what mirror.lua wrote from ARGV[14]: elig ('1': a list is required),
-- claims (one rule a line: the claim's name, then its allowed values, tab-separated), eligMode ('C': COUNT_ONLY),
-- eligN (members in the list MySQL holds), human ('' none, 'POW', 'A2' Argon2id, 'SV') and bits (the proof of work's difficulty).
-- Refusals: 1 not on the list, 2 a claim rule fails, 3 proof required, 4 proof invalid, 5 human-check service
-- unavailable, 6 a siteverify token the api has not checked yet (it checks it and asks again).

-- Whether the member's claims (ARGV[6]: '\n' then 'name\tvalue\n' per value) satisfy every rule.
local function gate_claims_hold(rules, claims)
  for line in string.gmatch(rules, '[^\n]+') do
    local name, held = nil, false
    for part in string.gmatch(line, '[^\t]+') do
      if not name then
        name = part
      elseif string.find(claims, '\n' .. name .. '\t' .. part .. '\n', 1, true) then
        held = true
        break
      end
    end
    if not held then
      return false
    end
  end
  return true
end

-- 0 when the member is one the event is for, or holds a place already (queue or draw: the gate decides who may take a
-- place, not who keeps one, so a member whose claims changed or who left the list is answered with their place);
-- else the refusing rule (1 list, 2 claims), counted in stats. In COUNT_ONLY mode it always answers 0 and adds the
-- member to each refusing rule's HyperLogLog instead, and answers as a second value which rules would have refused
-- (1 the list, 2 the claims, 3 both) for the api's metric.
-- Returns 'missing' when the list was lost from Redis while the meta stayed: the api mirrors the event again.
local function gate_eligibility(meta_key, list_key, stats_key, would_list, would_claims, member, claims, queue_key,
                                draw_key)
  local g = redis.call('HMGET', meta_key, 'elig', 'claims', 'eligMode', 'eligN')
  local list_fails = false
  if g[1] == '1' and redis.call('SISMEMBER', list_key, member) == 0 then
    if tonumber(g[4] or '0') > 0 and redis.call('EXISTS', list_key) == 0 then
      return 'missing'
    end
    list_fails = true
  end
  local claims_fail = (g[2] or '') ~= '' and not gate_claims_hold(g[2], claims or '\n')
  -- a place is looked up only for a member a rule fails: the members the event is for pay nothing more
  if (list_fails or claims_fail)
    and (redis.call('ZSCORE', queue_key, member) or redis.call('ZSCORE', draw_key, member)) then
    return 0, 0
  end
  if g[3] == 'C' then
    if list_fails then
      redis.call('PFADD', would_list, member)
    end
    if claims_fail then
      redis.call('PFADD', would_claims, member)
    end
    return 0, (list_fails and 1 or 0) + (claims_fail and 2 or 0)
  end
  if list_fails then
    redis.call('HINCRBY', stats_key, 'refusedList', 1)
    return 1
  end
  if claims_fail then
    redis.call('HINCRBY', stats_key, 'refusedClaims', 1)
    return 2
  end
  return 0
end

-- 0 when the event needs no human check, the member holds a place already (queue or draw: asking again needs no new
-- proof), or the proof (ARGV[7]: '' none, 'P<bits>' a valid proof of work of that many bits, 'A<bits>' a valid Argon2id one, 'S' a siteverify token the
-- service accepted, 'U' the service did not answer, '?' a token not checked yet, 'X' refused) does; else 3 to 6.
local function gate_human(meta_key, queue_key, draw_key, stats_key, member, proof)
  local h = redis.call('HMGET', meta_key, 'human', 'bits')
  local kind = h[1] or ''
  if kind == '' or redis.call('ZSCORE', queue_key, member) or redis.call('ZSCORE', draw_key, member) then
    return 0
  end
  proof = proof or ''
  local refusal
  if proof == '' then
    refusal = 3
  elseif kind == 'POW' then
    local bits = string.sub(proof, 1, 1) == 'P' and tonumber(string.sub(proof, 2)) or nil
    refusal = (bits and bits >= tonumber(h[2] or '0')) and 0 or 4
  elseif kind == 'A2' then
    -- only an Argon2id proof ('A<bits>'): a SHA-256 one ('P<bits>') is refused whatever its bits
    local bits = string.sub(proof, 1, 1) == 'A' and tonumber(string.sub(proof, 2)) or nil
    refusal = (bits and bits >= tonumber(h[2] or '0')) and 0 or 4
  elseif proof == 'S' then
    refusal = 0
  elseif proof == 'U' then
    refusal = 5
  elseif proof == '?' then
    return 6 -- not a refusal yet: the api checks the token and asks again
  else
    refusal = 4
  end
  if refusal > 0 then
    redis.call('HINCRBY', stats_key, 'refusedProof', 1)
  end
  return refusal
end
