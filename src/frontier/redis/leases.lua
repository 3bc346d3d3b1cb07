-- Settling leases (used by the settle and claim scripts). `blob`: 42 bytes per lease: lease member
-- (16), URL hash (16), what (1: 0 requeue, 1 done, 2 released: the page is handled but its record
-- not yet durable), counted (1 | 0), defer: ms from now the host must wait (double, < 0 none).
-- A released lease frees its host at once (concurrency, politeness from now) and moves to `held`
-- until a done confirms it; one not confirmed in time expires like a lease (its URL served again).
-- Returns per lease 1, or 0 when the lease had expired and its URL was served again (nothing
-- changed). Settling done twice (a resend) returns 1 again; a requeue sent twice returns 0 the
-- second time.
-- `later` (optional, a table): the leases settled stay in `leases` for the caller to remove
-- (later.gone, a list; later[member] = true): a claim removes them after adding its own, so that the
-- set does not empty and come back as a listpack, into which Redis 7.0 inserts its first 128
-- members one at a time before converting it (callgrind: about 5% of the server's instructions per URL).
local function settle_leases(blob, now, later)
  local out = {}
  local queued, pages = 0, 0
  -- which leases still hold, or are held released (one ZMSCORE each, one ZREM for the batch); a
  -- lease settled twice counts once
  local members, valid, seen, dup = {}, {}, {}, {}
  for at = 1, #blob, 42 do members[#members + 1] = ssub(blob, at, at + 15) end
  local scores = zmscore(K('leases'), members)
  -- (held: only those not leased, if any)
  local heldScores, missing, missingAt = {}, {}, {}
  for i, m in ipairs(members) do
    if not scores[i] then
      missing[#missing + 1] = m
      missingAt[#missing] = i
    end
  end
  if #missing > 0 then
    for k, score in ipairs(zmscore(K('held'), missing)) do heldScores[missingAt[k]] = score end
  end
  local gone, released, unheld = {}, {}, {}
  for i, m in ipairs(members) do
    if seen[m] then
      dup[i] = true
    elseif scores[i] then
      valid[i] = scores[i]
      gone[#gone + 1] = m
    elseif heldScores[i] then
      valid[i] = 'held'
    end
    seen[m] = true
  end
  if later then
    later.gone = gone
    for _, m in ipairs(gone) do later[m] = true end
  else
    for at = 1, #gone, 1000 do rcall('ZREM', K('leases'), unpack(gone, at, mmin(#gone, at + 999))) end
  end
  local hids, ids, read = {}, {}, {}
  for i, m in ipairs(members) do
    hids[i], ids[i] = lease_parse(m)
    if valid[i] and valid[i] ~= 'held' then read[#read + 1] = hids[i] end
  end
  hosts_read(read)
  batch_begin()
  for i, m in ipairs(members) do
    local at = (i - 1) * 42
    local done, counted, defer = sunpack('>BBd', blob, at + 33)
    local hid, id = hids[i], ids[i]
    -- (the URL's hash: a done of a lease that holds does not need it)
    local hash = (done ~= 1 or not valid[i]) and ssub(blob, at + 17, at + 32)
    local ok = 0
    -- a lease gone (expired), its URL back in its queue: the member there
    local back = not valid[i] and not dup[i] and queued_member(hid, hash, id)
    if valid[i] == 'held' then
      -- released earlier, its record now durable: done (a requeue puts it back)
      ok = 1
      if done ~= 2 then unheld[#unheld + 1] = m end
      -- (released again: it stays held until its expiry)
      if done == 0 then
        local r = rec_get(hid, hash)
        if r and r[2] == QUEUED then
          -- (its host was freed when it was released: placed again, its queue having changed)
          local h = load_host(hid)
          queued = queued + requeue(hid, h, r, hash)
          place(hid, h, now)
        end
        ix_put(id, hid, hash)
      end
    elseif valid[i] then
      ok = 1
      -- (done: the URL's ix entry names this lease since its claim, so it stays as it is)
      if done == 2 then
        released[#released + 1] = valid[i]
        released[#released + 1] = m
      end
      local h = load_host(hid)
      if done == 0 then
        local r = rec_get(hid, hash)
        if r and r[2] == QUEUED then queued = queued + requeue(hid, h, r, hash) end
        ix_put(id, hid, hash)
      end
      h.f, h.dirty = h.f - 1, true
      if counted == 0 then h.p, pages = h.p - 1, pages - 1 end
      local t = now + h.d
      if defer >= 0 and now + defer > t then t = now + defer end
      if t > h.t then h.t = t end
      place(hid, h, now)
    elseif back then
      -- the lease expired and its URL went back to the queue; no one took it since: this outcome stands
      ok = 1
      local h = load_host(hid)
      if done >= 1 then
        -- (released: taken as done at once, the lease being gone)
        rcall('ZREM', qk(hid), back)
        nb_lost(hid, h)
        queued = queued - 1
        ix_put(id, hid, hash, ssub(m, 11))
        if counted == 1 then h.p, pages, h.dirty = h.p + 1, pages + 1, true end
      end
      if defer >= 0 and now + defer > h.t then h.t, h.dirty = now + defer, true end
      place(hid, h, now)
    elseif not dup[i] then
      -- the same settle sent again (the client resends commands after a reconnection): it stands
      -- (the URL's ix entry still names this lease, which is in neither set: it was settled done)
      local _, _, by = ix_get(id)
      if by == ssub(m, 11) then ok = 1 end
    end
    out[#out + 1] = ok
  end
  batch_flush()
  -- (held ones that were confirmed or requeued go after those released join: see `later`)
  for at = 1, #released, 1000 do rcall('ZADD', K('held'), unpack(released, at, mmin(#released, at + 999))) end
  for at = 1, #unheld, 1000 do rcall('ZREM', K('held'), unpack(unheld, at, mmin(#unheld, at + 999))) end
  if queued ~= 0 then rcall('INCRBY', K('queued'), queued) end
  if pages ~= 0 then rcall('INCRBY', K('pages'), pages) end
  return out
end

-- What the client sent since its last call, applied first by every script that takes it: priority
-- updates (apply_updates), then settles (settle_leases). Returns the settles' results, a byte each.
-- (`later`: see settle_leases)
local function apply_pending(updates, settles, now, later)
  apply_updates(updates, now)
  if not settles or #settles == 0 then return '' end
  local bytes = {}
  for i, ok in ipairs(settle_leases(settles, now, later)) do bytes[i] = ok == 1 and '\1' or '\0' end
  return table.concat(bytes)
end
