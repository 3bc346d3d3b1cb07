-- Hosts and workers: ARGV[6] operation, then its arguments.
--   id <name>            -> the host's id (created if new)
--   delay <hid> <ms>     -> sets the host's politeness delay
--   defer <hid> <ms>     -> the host waits at least this long from now
--   suspend <hid>        -> the host is handed out no more (its URLs stay queued); it joins `suspended`
--   states               -> {hosts waiting, sleeping, suspended} (see the Frontier's hostStates)
--   worker <name>        -> the worker's number (created if new; a worker that joins again leaves `wleft`)
--   epoch                -> the crawl's epoch (created if missing: the server lost the crawl's keys,
--                           or the crawl is new); host ids a client learnt hold while it stays
local H_T, H_OWN, H_D, H_S, H_DIRTY = 1, 4, 5, 6, 11
local op = ARGV[6]
if op == 'id' then return host_id(ARGV[7]) end
if op == 'states' then
  -- a host in `sleep` whose time has come waits for the next claim to move it to `ready`: it waits already
  local now = now_ms()
  local woke = rcall('ZCOUNT', K('sleep'), '-inf', now)
  return { rcall('ZCARD', K('ready')) + woke, rcall('ZCARD', K('sleep')) - woke, rcall('SCARD', K('suspended')) }
end
if op == 'epoch' then
  local t = rcall('TIME')
  rcall('SET', K('epoch'), t[1] .. '.' .. t[2], 'NX')
  return rcall('GET', K('epoch'))
end
if op == 'worker' then
  local wno = rcall('HGET', K('wnos'), ARGV[7])
  -- (a worker that joins again under its name is in the crawl again: no longer `wleft`)
  if wno then
    rcall('HDEL', K('wleft'), wno)
    return tonumber(wno)
  end
  wno = rcall('INCR', K('wno')) % 65536
  rcall('HSET', K('wnos'), ARGV[7], wno)
  rcall('HSET', K('wnames'), wno, ARGV[7])
  return wno
end
local hid = tonumber(ARGV[7])
local h = load_host(hid)
if not h then return redis.error_reply('ERR no host ' .. tostring(ARGV[7]) .. ' in this crawl') end
if op == 'delay' then
  h[H_OWN] = tonumber(ARGV[8])
  h[H_D] = h[H_OWN] >= 0 and h[H_OWN] or DELAY
  save_host(hid, h)
  return 1
end
local now = now_ms()
if op == 'defer' then
  local t = now + tonumber(ARGV[8])
  if t > h[H_T] then h[H_T], h[H_DIRTY] = t, true end
elseif op == 'suspend' then
  h[H_S], h[H_DIRTY] = true, true
  rcall('SADD', K('suspended'), hid)
else
  return redis.error_reply('ERR unknown host operation ' .. tostring(op))
end
place(hid, h, now)
return 1
