-- Claim: ARGV[6] max URLs, ARGV[7] lease ms, ARGV[8] worker id.
-- Returns {'urls', now, <12 fields per lease>...} | {'wait', now, until} | {'budget', now} | {'empty', now}.
local now = now_ms()
local max, leaseMs, worker = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]
redis.call('HSET', K('workers'), worker, now)

-- leases not settled in time: their URLs go back to their host's queue, their pages to the budget
for _, tok in ipairs(redis.call('ZRANGEBYSCORE', K('leases'), '-inf', now, 'LIMIT', 0, 1000)) do
  local v = redis.call('HGET', K('lease'), tok)
  if v then
    local hid, id, counted = lease_end(tok, v)
    local _, hash = ix_get(id)
    local r = rec_get(hid, hash)
    if r and r[2] == IN_FLIGHT then enqueue(hid, hash, r) end
    if counted == 1 then uncount(hid) end
    sched(hid, now)
  else
    redis.call('ZREM', K('leases'), tok)
  end
end

-- hosts whose time has come
for _, hid in ipairs(redis.call('ZRANGEBYSCORE', K('sleep'), '-inf', now, 'LIMIT', 0, 1000)) do sched(hid, now) end

local pages = tonumber(redis.call('GET', K('pages')) or 0)
local out = { 'urls', now }
local n = 0
while n < max do
  if MAXPAGES > 0 and pages >= MAXPAGES then break end
  local top = redis.call('ZRANGE', K('ready'), 0, 0)
  if #top == 0 then break end
  local hid = struct.unpack('>I4', top[1], 7)
  local hk = K('h:' .. hid)
  local h = redis.call('HMGET', hk, 'f', 'p', 'd', 't', 'n')
  local room = math.min(max - n, CONC - tonumber(h[1] or 0))
  if MAXHOST > 0 then room = math.min(room, MAXHOST - tonumber(h[2] or 0)) end
  if MAXPAGES > 0 then room = math.min(room, MAXPAGES - pages) end
  if room <= 0 then
    sched(hid, now)
    break
  end
  local popped = redis.call('ZPOPMIN', K('q:' .. hid), room)
  local k = #popped / 2
  local exp = now + leaseMs
  for i = 1, #popped, 2 do
    local id = idof(popped[i])
    local _, hash = ix_get(id)
    local r = rec_get(hid, hash)
    r[2] = IN_FLIGHT
    rec_put(hid, hash, r)
    local tok = redis.call('INCR', K('ltok'))
    redis.call('ZADD', K('leases'), exp, tok)
    redis.call('HSET', K('lease'), tok, lease_pack(hid, id, 1, worker))
    out[#out + 1] = tostring(tok)
    out[#out + 1] = num(exp)
    out[#out + 1] = tostring(hid)
    out[#out + 1] = h[5]
    out[#out + 1] = num(id)
    out[#out + 1] = r[11]
    out[#out + 1] = num(r[3])
    out[#out + 1] = num(r[5])
    out[#out + 1] = num(r[4])
    out[#out + 1] = num(r[6])
    out[#out + 1] = num(r[7])
    out[#out + 1] = r[8] or '\0'
  end
  if k > 0 then
    redis.call('HINCRBY', hk, 'f', k)
    redis.call('HINCRBY', hk, 'p', k)
    redis.call('INCRBY', K('pages'), k)
    redis.call('DECRBY', K('queued'), k)
    redis.call('HINCRBY', K('wl'), worker, k)
    pages = pages + k
    n = n + k
    local t = now + tonumber(h[3] or DELAY)
    if t > tonumber(h[4] or 0) then redis.call('HSET', hk, 't', t) end
  end
  sched(hid, now)
end

if n > 0 then return out end
if MAXPAGES > 0 and pages >= MAXPAGES then return { 'budget', now } end
local wake = redis.call('ZRANGE', K('sleep'), 0, 0, 'WITHSCORES')
local lease = redis.call('ZRANGE', K('leases'), 0, 0, 'WITHSCORES')
local untl = nil
if #wake > 0 then untl = tonumber(wake[2]) end
if #lease > 0 then
  -- another worker's settle may free a host any time: ask again soon (or at the lease's expiry)
  local soon = math.min(tonumber(lease[2]), now + 200)
  if untl == nil or soon < untl then untl = soon end
end
if untl == nil then return { 'empty', now } end
return { 'wait', now, num(untl) }
