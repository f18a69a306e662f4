-- One shard as the sold-out check and the recovery of transfers see it (docs/architecture.md, "Stock shards").
-- KEYS: 1 stock, 2 queue, 3 escrow
-- Returns {exists (0/1), free (less the places a fair start's draw holds), moves, out (0/1), admitted, escrow id 1, 'dest:amount' 1, ...}
local stock = redis.call('HMGET', KEYS[1], 'share', 'moved', 'moves', 'out', 'held')
local admitted = redis.call('ZCARD', KEYS[2])
local reply = {0, 0, 0, 0, admitted}
if stock[1] then
  reply = {1, tonumber(stock[1]) + tonumber(stock[2] or '0') - tonumber(stock[5] or '0') - admitted, tonumber(stock[3] or '0'),
    stock[4] == '1' and 1 or 0, admitted}
end
local escrow = redis.call('HGETALL', KEYS[3])
for i = 1, #escrow do
  reply[#reply + 1] = escrow[i]
end
return reply
