-- Intake: ARGV[6] adds (one string), ARGV[7] changes, ARGV[8] updates (counts), then
--   per change (7 args): id, host id, priority, life, state, inlinks, inlinkScore ('' unchanged);
--   per update (2 args): id, priority (applied to queued URLs only; a leased URL's record only).
-- An add: URL hash (16 bytes), depth, priority, life, hops, parentId (0 none), inlinks, inlinkScore
-- (doubles, big-endian), state (1 byte), lengths of host, url, anchor (2, 2, 4 bytes; anchor
-- 0xFFFFFFFF: none), then host, url and anchor.
-- Returns the id of each add, negative for those known already.
local now = now_ms()
local adds, nChanges, nUpdates = ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[8])
local touched = {}
local hosts = {}
local out = {}
local nextId = tonumber(redis.call('GET', K('seq')) or 0) + 1
local firstId = nextId
local queued = 0
local ixw, qw = {}, {}
local at = 1
while at <= #adds do
  local hash, depth, prio, life, hops, parent, inl, inlScore, state, hl, ul, al, pos =
    struct.unpack('>c16dddddddBI2I2I4', adds, at)
  local host = string.sub(adds, pos, pos + hl - 1)
  local url = string.sub(adds, pos + hl, pos + hl + ul - 1)
  local anchor = false
  if al ~= 4294967295 then
    anchor = string.sub(adds, pos + hl + ul, pos + hl + ul + al - 1)
    at = pos + hl + ul + al
  else
    at = pos + hl + ul
  end
  local hid = host_id(host, hosts)
  local id = nextId
  local rest, scheme = url_pack(url, host)
  local r = { id, state, depth, life, prio, hops, parent, anchor, inl, inlScore, rest, scheme }
  if redis.call('HSETNX', K('u:' .. hid), hash, cmsgpack.pack(r)) == 1 then
    nextId = nextId + 1
    -- the id index and the queues are written after the loop, a bucket or a host at a time
    local b = math.floor(id / 128)
    local ix = ixw[b]
    if not ix then
      ix = {}
      ixw[b] = ix
    end
    ix[#ix + 1] = id % 128
    ix[#ix + 1] = hidkey(hid) .. hash
    if state == QUEUED then
      local q = qw[hid]
      if not q then
        q = {}
        qw[hid] = q
      end
      q[#q + 1] = -prio
      q[#q + 1] = idkey(id)
      queued = queued + 1
      touched[hid] = true
    end
    out[#out + 1] = id
  else
    out[#out + 1] = -rec_get(hid, hash)[1]
  end
end
for b, ix in pairs(ixw) do redis.call('HSET', K('ix:' .. b), unpack(ix)) end
for hid, q in pairs(qw) do
  for i = 1, #q, 1000 do redis.call('ZADD', K('q:' .. hid), unpack(q, i, math.min(#q, i + 999))) end
end
if nextId > firstId then redis.call('SET', K('seq'), nextId - 1) end

local a = 9
for _ = 1, nChanges do
  local id = tonumber(ARGV[a])
  local hid, hash = ix_get(id)
  local r = hash and rec_get(hid, hash)
  if r then
    local was = r[2] == QUEUED
    local oldp = r[5]
    if ARGV[a + 2] ~= '' then r[5] = tonumber(ARGV[a + 2]) end
    if ARGV[a + 3] ~= '' then r[4] = tonumber(ARGV[a + 3]) end
    if ARGV[a + 4] ~= '' then r[2] = tonumber(ARGV[a + 4]) end
    if ARGV[a + 5] ~= '' then r[9] = tonumber(ARGV[a + 5]) end
    if ARGV[a + 6] ~= '' then r[10] = tonumber(ARGV[a + 6]) end
    local is = r[2] == QUEUED
    -- a leased URL (QUEUED, out of its queue) keeps its lease: its state does not change under it
    local leased = was and not in_queue(hid, id)
    if leased then
      r[2] = QUEUED
    elseif was and not is then
      redis.call('ZREM', K('q:' .. hid), idkey(id))
      queued = queued - 1
      touched[hid] = true
    elseif is and (not was or r[5] ~= oldp) then
      queued = queued + requeue(hid, r)
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
    if redis.call('ZADD', K('q:' .. hid), 'XX', 'CH', -p, idkey(id)) == 1 then touched[hid] = true end
  end
  a = a + 2
end

if queued ~= 0 then redis.call('INCRBY', K('queued'), queued) end
batch_begin()
for hid in pairs(touched) do sched(hid, now) end
batch_flush()
return out
