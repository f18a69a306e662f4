-- The sizing's plan, kept once on shard 0 (ShardDraws): the first plan written is the one every instance applies.
-- KEYS: 1 shard 0's stock   ARGV: 1 the plan ('entrants,places,held 0,reserved 0,held 1,...')
-- Returns {the plan kept}
redis.call('HSETNX', KEYS[1], 'drawPlan', ARGV[1])
return {redis.call('HGET', KEYS[1], 'drawPlan')}
