-- Settling leases (used by the settle and claim scripts). `blob`: 42 bytes per lease: lease member
-- (16), URL hash (16), done (1) or requeue (0), counted (1 | 0), defer: ms from now the host must
-- wait (double, < 0 none). Returns per lease 1, or 0 when the lease had expired and its URL was
-- served again (nothing changed). Settling done twice (a resend) returns 1 again; a requeue sent
-- twice returns 0 the second time.
local function settle_leases(blob, now)
  local out = {}
  local queued, pages = 0, 0
  -- which leases still hold (one ZMSCORE, one ZREM for the batch); a lease settled twice counts once
  local members, valid, seen, dup = {}, {}, {}, {}
  for at = 1, #blob, 42 do members[#members + 1] = string.sub(blob, at, at + 15) end
  for at = 1, #members, 1000 do
    local last = math.min(#members, at + 999)
    local scores = redis.call('ZMSCORE', K('leases'), unpack(members, at, last))
    local gone = {}
    for i = at, last do
      local m = members[i]
      if seen[m] then
        dup[i] = true
      elseif scores[i - at + 1] then
        valid[i] = true
        gone[#gone + 1] = m
      end
      seen[m] = true
    end
    if #gone > 0 then redis.call('ZREM', K('leases'), unpack(gone)) end
  end
  batch_begin()
  for i, m in ipairs(members) do
    local hash, done, counted, defer = struct.unpack('>c16BBd', blob, (i - 1) * 42 + 17)
    local hid, id = lease_parse(m)
    local ok = 0
    if valid[i] then
      ok = 1
      if done == 1 then
        ix_put(id, hid, hash, string.sub(m, 11))
      else
        local r = rec_get(hid, hash)
        if r and r[2] == QUEUED then queued = queued + requeue(hid, r) end
      end
      local h = load_host(hid)
      h.f, h.dirty = h.f - 1, true
      if counted == 0 then h.p, pages = h.p - 1, pages - 1 end
      local t = now + h.d
      if defer >= 0 and now + defer > t then t = now + defer end
      if t > h.t then h.t = t end
      place(hid, h, now)
    elseif not dup[i] and in_queue(hid, id) then
      -- the lease expired and its URL went back to the queue; no one took it since: this outcome stands
      ok = 1
      local h = load_host(hid)
      if done == 1 then
        redis.call('ZREM', K('q:' .. hid), idkey(id))
        queued = queued - 1
        ix_put(id, hid, hash, string.sub(m, 11))
        if counted == 1 then h.p, pages, h.dirty = h.p + 1, pages + 1, true end
      end
      if defer >= 0 and now + defer > h.t then h.t, h.dirty = now + defer, true end
      place(hid, h, now)
    elseif not dup[i] then
      -- the same settle sent again (the client resends commands after a reconnection): it stands
      local _, _, doneBy = ix_get(id)
      if doneBy == string.sub(m, 11) then ok = 1 end
    end
    out[#out + 1] = ok
  end
  batch_flush()
  if queued ~= 0 then redis.call('INCRBY', K('queued'), queued) end
  if pages ~= 0 then redis.call('INCRBY', K('pages'), pages) end
  return out
end
