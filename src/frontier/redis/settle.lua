-- Settle: ARGV[6] lease token, ARGV[7] URL id, ARGV[8] host id, ARGV[9] 'done' | 'requeue',
-- ARGV[10] counted (1 | 0), ARGV[11] defer: ms from now the host must wait ('' none).
-- Returns 1, or 0 when the lease had expired and its URL was served again (nothing changed).
local now = now_ms()
local tok, id, hid, how = ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[8]), ARGV[9]
local counted = tonumber(ARGV[10])
local defer = ARGV[11]
local v = redis.call('HGET', K('lease'), tok)
if not v then
  -- the lease expired and its URL went back to the queue: if no one took it since, this outcome stands
  local _, hash = ix_get(id)
  local r = hash and rec_get(hid, hash)
  if not r or r[2] ~= QUEUED then return 0 end
  if how == 'done' then
    redis.call('ZREM', K('q:' .. hid), idkey(id))
    redis.call('DECR', K('queued'))
    r[2] = FETCHED
    rec_put(hid, hash, r)
    if counted == 1 then
      redis.call('INCR', K('pages'))
      redis.call('HINCRBY', K('h:' .. hid), 'p', 1)
    end
  end
  if defer ~= '' then not_before(hid, now + tonumber(defer)) end
  sched(hid, now)
  return 1
end
local lhid, lid, lcounted = lease_end(tok, v)
local _, hash = ix_get(lid)
local r = rec_get(lhid, hash)
if how == 'done' then
  r[2] = FETCHED
  rec_put(lhid, hash, r)
else
  enqueue(lhid, hash, r)
end
if counted == 0 and lcounted == 1 then uncount(lhid) end
not_before(lhid, now + host_delay(lhid))
if defer ~= '' then not_before(lhid, now + tonumber(defer)) end
sched(lhid, now)
return 1
