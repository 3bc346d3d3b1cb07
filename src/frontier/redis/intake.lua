-- Intake: ARGV[6] adds, ARGV[7] changes, ARGV[8] updates (counts), then
--   per add (13): hash, host, url, depth, priority, life, parentId (0 none), anchor, anchor is null (1|0),
--                 hops, inlinks, inlinkScore, state;
--   per change (7): id, host id, priority, life, state, inlinks, inlinkScore ('' unchanged);
--   per update (2): id, priority (applied to queued URLs only).
-- Returns the id of each add, negative for those known already.
local now = now_ms()
local nAdds, nChanges, nUpdates = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local touched = {}
local hosts = {}
local out = {}
local a = 9
for i = 1, nAdds do
  local hash, host = ARGV[a], ARGV[a + 1]
  local hid = host_id(host, hosts)
  local uk = K('u:' .. hid)
  local known = redis.call('HGET', uk, hash)
  if known then
    out[i] = -cmsgpack.unpack(known)[1]
  else
    local id = redis.call('INCR', K('seq'))
    local anchor = false
    if ARGV[a + 8] == '0' then anchor = ARGV[a + 7] end
    local r = { id, tonumber(ARGV[a + 12]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 5]), tonumber(ARGV[a + 4]),
      tonumber(ARGV[a + 9]), tonumber(ARGV[a + 6]), anchor, tonumber(ARGV[a + 10]), tonumber(ARGV[a + 11]), ARGV[a + 2] }
    ix_put(id, hid, hash)
    if r[2] == QUEUED then
      enqueue(hid, hash, r)
      touched[hid] = true
    else
      rec_put(hid, hash, r)
    end
    out[i] = id
  end
  a = a + 13
end

for _ = 1, nChanges do
  local id = tonumber(ARGV[a])
  local hid, hash = ix_get(id)
  local r = hash and rec_get(hid, hash)
  if r then
    local old, oldp = r[2], r[5]
    if ARGV[a + 2] ~= '' then r[5] = tonumber(ARGV[a + 2]) end
    if ARGV[a + 3] ~= '' then r[4] = tonumber(ARGV[a + 3]) end
    if ARGV[a + 4] ~= '' and old ~= IN_FLIGHT then r[2] = tonumber(ARGV[a + 4]) end
    if ARGV[a + 5] ~= '' then r[9] = tonumber(ARGV[a + 5]) end
    if ARGV[a + 6] ~= '' then r[10] = tonumber(ARGV[a + 6]) end
    local was, is = old == QUEUED, r[2] == QUEUED
    if was and not is then
      redis.call('ZREM', K('q:' .. hid), idkey(id))
      redis.call('DECR', K('queued'))
      touched[hid] = true
    elseif is and not was then
      redis.call('INCR', K('queued'))
      touched[hid] = true
    end
    if is and (not was or r[5] ~= oldp) then
      redis.call('ZADD', K('q:' .. hid), -r[5], idkey(id))
      touched[hid] = true
    end
    rec_put(hid, hash, r)
  end
  a = a + 7
end

for _ = 1, nUpdates do
  local id, p = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  local hid, hash = ix_get(id)
  local r = hash and rec_get(hid, hash)
  if r and r[2] == QUEUED and r[5] ~= p then
    r[5] = p
    rec_put(hid, hash, r)
    redis.call('ZADD', K('q:' .. hid), -p, idkey(id))
    touched[hid] = true
  end
  a = a + 2
end

for hid in pairs(touched) do sched(hid, now) end
return out
