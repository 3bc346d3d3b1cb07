-- Intake: ARGV[6] adds (one string), ARGV[7] number of changes, ARGV[8] priority updates (see
-- apply_updates, applied last), ARGV[9] and ARGV[10] what the client sent before (see
-- apply_pending, applied first), then
--   per change (8 args): id, host id, URL hash ('': not given, found by id), priority, life, state,
--   inlinks, inlinkScore ('' unchanged).
-- The adds: the length of the crawl's epoch in which their host ids and ids were had (1 byte; 0: they
-- name no host by id and carry no id), that epoch (see hosts.lua), then per add: host id (4 bytes;
-- 0: by name) and URL hash (16 bytes), the URL's member in its queue (8 key bytes, see qkey in
-- common.lua, the 6-byte id, the hash), the id
-- again as a double (reserved by the client, see redis-id-blocks.ts; 0: the next of `seq`, and the
-- member's id bytes are 0), state (1 byte), lengths of host name (0 with an id) and record (2, 4
-- bytes), the name, then the URL's record (u:<hid>) in MessagePack: whole with an id, else without its
-- array head and first field, the id.
-- Returns the pending settles' results (a string, see apply_pending), the host ids of the adds
-- sent by name (4 bytes each, in order), then the id of each add, negative for those known already.
local adds, nChanges, updates = ARGV[6], tonumber(ARGV[7]), ARGV[8]
-- host ids and reserved URL ids hold while the crawl's epoch is the one the client got them in; else
-- (the server lost the crawl's keys) nothing is done and the answer is the error TC_STALE_HOSTS (the
-- client learns the new epoch and sends the adds again by name, without ids)
local el = string.byte(adds, 1)
if el > 0 and rcall('GET', K('epoch')) ~= ssub(adds, 2, 1 + el) then
  return redis.error_reply('TC_STALE_HOSTS the host ids sent are of another epoch of this crawl')
end
local now = now_ms()
local settled = apply_pending(ARGV[9], ARGV[10], now)
local touched = {}
-- hosts that gained URLs: the queue member of the best of them (see qkey); `false` once the host has other changes
local gained, gainedAt = {}, {}
local hosts = {}
local named = {}
local out = { settled, '' }
local nextId = tonumber(rcall('GET', K('seq')) or 0) + 1
local firstId = nextId
local queued, added = 0, 0
local ixw, qw = {}, {}
local at = 2 + el
-- per host: its u:<hid> key and 4-byte id
local ukey = {}
local nOut = 2
while at <= #adds do
  local ixv, mem, id, state, hl, rl, pos = sunpack('>c20c30dBI2I4', adds, at)
  local hid = sunpack('>I4', ixv)
  local hash = ssub(ixv, 5)
  if hid == 0 then
    hid = host_id(ssub(adds, pos, pos + hl - 1), hosts)
    ixv = hidkey(hid) .. hash
    named[#named + 1] = ssub(ixv, 1, 4)
  end
  local u = ukey[hid]
  if not u then
    u = uk(hid)
    ukey[hid] = u
  end
  local rec, own = nil, id == 0
  if not own then
    rec = ssub(adds, pos + hl, pos + hl + rl - 1)
  else
    -- (0x9c: an array of 12; the id as MessagePack's uint 32)
    id = nextId
    mem = ssub(mem, 1, 8) .. idkey(id) .. hash
    rec = '\156' .. (id < TWO32 and spack('>BI4', 0xce, id) or cmsgpack.pack(id)) .. ssub(adds, pos + hl, pos + hl + rl - 1)
  end
  at = pos + hl + rl
  nOut = nOut + 1
  if rcall('HSETNX', u, hash, rec) == 1 then
    if own then nextId = nextId + 1 end
    added = added + 1
    -- the id index and the queues are written after the loop, a bucket or a host at a time
    local b = floor(id / IXN)
    local ix = ixw[b]
    if not ix then
      ix = {}
      ixw[b] = ix
    end
    ix[#ix + 1] = ixf(id % IXN)
    ix[#ix + 1] = ixv
    if state == QUEUED then
      local q = qw[hid]
      if not q then
        qw[hid] = { '0', mem }
        gained[hid] = mem
        gainedAt[#gainedAt + 1] = hid
        touched[hid] = true
      else
        q[#q + 1] = '0'
        q[#q + 1] = mem
        if qbefore(mem, gained[hid]) then gained[hid] = mem end
      end
      queued = queued + 1
    end
    out[nOut] = id
  else
    out[nOut] = -rec_get(hid, hash)[1]
  end
end
for b, ix in pairs(ixw) do rcall('HSET', ixb(b), unpack(ix)) end
for hid, q in pairs(qw) do
  for i = 1, #q, 1000 do rcall('ZADD', qk(hid), unpack(q, i, mmin(#q, i + 999))) end
end
if nextId > firstId then rcall('SET', K('seq'), nextId - 1) end
if added > 0 then rcall('INCRBY', K('urls'), added) end
out[2] = table.concat(named)

-- changes, a host at a time: its records and queue entries read in one call each, written in one each
local byHost = {}
local a = 11
for _ = 1, nChanges do
  local id = tonumber(ARGV[a])
  local hid, hash = tonumber(ARGV[a + 1]), ARGV[a + 2]
  if hash == '' then hid, hash = ix_get(id) end
  if hash then
    local g = byHost[hid]
    if not g then
      g = {}
      byHost[hid] = g
    end
    g[#g + 1] = { id = id, hash = hash, a = a }
  end
  a = a + 8
end
for hid, g in pairs(byHost) do
  local hashes, at = {}, {}
  for _, c in ipairs(g) do
    if not at[c.hash] then
      hashes[#hashes + 1] = c.hash
      at[c.hash] = #hashes
    end
  end
  -- inq[i]: the URL is in its host's queue; before[i]: its member there before the changes
  local recs, inq, mem = host_records(hid, hashes)
  local before, dirty = {}, {}
  for i, r in pairs(recs) do
    if r and inq[i] then before[i] = mem[i] end
  end
  for _, c in ipairs(g) do
    local i = at[c.hash]
    local r = recs[i]
    if r and r[1] == c.id then
      local x = c.a
      local was = r[2] == QUEUED
      local oldp = r[5]
      if ARGV[x + 3] ~= '' then r[5] = tonumber(ARGV[x + 3]) end
      if ARGV[x + 4] ~= '' then r[4] = tonumber(ARGV[x + 4]) end
      if ARGV[x + 5] ~= '' then r[2] = tonumber(ARGV[x + 5]) end
      if ARGV[x + 6] ~= '' then r[9] = tonumber(ARGV[x + 6]) end
      if ARGV[x + 7] ~= '' then r[10] = tonumber(ARGV[x + 7]) end
      local is = r[2] == QUEUED
      if was and not inq[i] then
        -- a leased (or fetched) URL: QUEUED, out of its queue; its state does not change under its lease
        r[2] = QUEUED
      elseif was and not is then
        inq[i] = false
        queued = queued - 1
        touched[hid] = true
      elseif is and (not was or r[5] ~= oldp) then
        if not inq[i] then queued = queued + 1 end
        inq[i] = true
        touched[hid] = true
      end
      dirty[i] = true
      gained[hid] = false
    end
  end
  local hset, zadd, zrem = {}, {}, {}
  for i in pairs(dirty) do
    hset[#hset + 1] = hashes[i]
    hset[#hset + 1] = cmsgpack.pack(recs[i])
  end
  -- the queue: a member that changed (priority: its key bytes) or left goes, a new one comes
  for i in pairs(dirty) do
    local m = inq[i] and qmember(recs[i], hashes[i])
    if before[i] and before[i] ~= m then zrem[#zrem + 1] = before[i] end
    if m and m ~= before[i] then
      zadd[#zadd + 1] = '0'
      zadd[#zadd + 1] = m
    end
  end
  for k = 1, #hset, 1000 do rcall('HSET', uk(hid), unpack(hset, k, mmin(#hset, k + 999))) end
  for k = 1, #zrem, 1000 do rcall('ZREM', qk(hid), unpack(zrem, k, mmin(#zrem, k + 999))) end
  for k = 1, #zadd, 1000 do rcall('ZADD', qk(hid), unpack(zadd, k, mmin(#zadd, k + 999))) end
end

if queued ~= 0 then rcall('INCRBY', K('queued'), queued) end
local others = {}
for hid in pairs(touched) do
  if not gained[hid] then others[#others + 1] = hid end
end
hosts_read(others)
batch_begin()
for _, hid in ipairs(others) do resched(hid, now) end
place_gained(gained, gainedAt, now)
batch_flush()
apply_updates(updates, now)
return out
