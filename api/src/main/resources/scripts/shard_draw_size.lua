-- Holds a shard's part of a fair start's draw (ShardDraws), once: 'held' places are counted in its cap until the draw
-- writes its members in (newcomers are admitted from the rest), and the sequences of the draw's members at home here
-- are set aside (drawFrom .. drawFrom + reserved - 1) so that they come before every newcomer's.
-- KEYS: 1 stock, 2 seq   ARGV: 1 held, 2 reserved, 3 the draw's entrants, 4 its places
-- Returns {drawFrom}
if redis.call('HGET', KEYS[1], 'drawSized') ~= '1' then
  local seq = tonumber(redis.call('GET', KEYS[2]) or '0')
  redis.call('SET', KEYS[2], seq + tonumber(ARGV[2]))
  redis.call('HSET', KEYS[1], 'held', ARGV[1], 'drawFrom', seq + 1, 'drawEntrants', ARGV[3], 'drawPlaces', ARGV[4],
    'drawSized', 1)
end
return {tonumber(redis.call('HGET', KEYS[1], 'drawFrom') or '0')}
