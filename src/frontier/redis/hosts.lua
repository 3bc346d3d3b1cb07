-- Hosts: ARGV[6] operation, then its arguments.
--   id <name>            -> the host's id (created if new)
--   delay <hid> <ms>     -> sets the host's politeness delay
--   defer <hid> <ms>     -> the host waits at least this long from now
--   suspend <hid>        -> the host is handed out no more (its URLs stay queued)
local op = ARGV[6]
if op == 'id' then return host_id(ARGV[7]) end
local hid = tonumber(ARGV[7])
if op == 'delay' then
  redis.call('HSET', K('h:' .. hid), 'd', tonumber(ARGV[8]))
  return 1
end
local now = now_ms()
if op == 'defer' then
  not_before(hid, now + tonumber(ARGV[8]))
elseif op == 'suspend' then
  redis.call('HSET', K('h:' .. hid), 's', 1)
else
  return redis.error_reply('ERR unknown host operation ' .. tostring(op))
end
sched(hid, now)
return 1
