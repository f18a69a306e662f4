-- The gate's counts of a live event, for saving in MySQL (GateCounts): its refusals by rule, then COUNT_ONLY's
-- would-be refusals per rule, as counts and as the HyperLogLogs themselves (Redis' own encoding, read as strings).
-- KEYS: 1 meta, 2 stats, 3 wouldRefuse:list, 4 wouldRefuse:claims
-- Returns {} when the meta is missing (Redis lost the event and it is not restored yet: what Redis holds then is not
-- the event's figures), {'0'} when nothing was counted, else {refusedList, refusedClaims, refusedProof, would list
-- count, would claims count, list sketch or '', claims sketch or ''}, every one a string.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {}
end
local refused = redis.call('HMGET', KEYS[2], 'refusedList', 'refusedClaims', 'refusedProof')
local list, claims = redis.call('GET', KEYS[3]), redis.call('GET', KEYS[4])
if not (refused[1] or refused[2] or refused[3] or list or claims) then
  return {'0'}
end
return {refused[1] or '0', refused[2] or '0', refused[3] or '0', tostring(redis.call('PFCOUNT', KEYS[3])),
  tostring(redis.call('PFCOUNT', KEYS[4])), list or '', claims or ''}
