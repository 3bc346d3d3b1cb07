-- Settling leases (used by the settle and claim scripts). `blob`: 42 bytes per lease: lease member
-- (16), URL hash (16), what (1: 0 requeue, 1 done, 2 released: the page is handled but its record
-- not yet durable), counted (1 | 0), defer: ms from now the host must wait (double, < 0 none).
-- A released lease frees its host at once (concurrency, politeness from now) and moves to `held`
-- until a done confirms it; one not confirmed in time expires like a lease (its URL served again).
-- Returns per lease 1, or 0 when the lease had expired and its URL was served again (nothing
-- changed). Settling done twice (a resend) returns 1 again; a requeue sent twice, 1 while its URL
-- waits in its queue (taken by no one since), else 0.
-- `later` (optional, a table): the leases settled stay in `leases` (later.gone, a list), and the
-- URLs done in `lid` (later.lidGone, their ids), for the caller to remove: a claim removes them after
-- adding its own, so that neither empties and comes back as a listpack, into which Redis 7.0 inserts
-- its first 128 members one at a time before converting it (callgrind: about 5% of the server's
-- instructions per URL).
-- The URL of lease i of `blob` (member m): its id and hash.
local function lease_url(blob, i, m)
  return idof(m, 5), ssub(blob, i * 42 - 25, i * 42 - 10)
end
-- Puts the URL of lease i (member m, of host hid, state h) back in its host's queue if its record
-- still says QUEUED, and out of `lid` at once (the claim this settle rides with may hand it out
-- again). Returns 1 if it joined the queue, else 0.
local function lease_requeue(blob, i, m, hid, h)
  local id, hash = lease_url(blob, i, m)
  local r = rec_get(hid, hash)
  local added = 0
  if r and r[2] == QUEUED then added = requeue(hid, h, r, hash) end
  rcall('SREM', K('lid'), ssub(m, 5, 10))
  return added
end

local function settle_leases(blob, now, later)
  local H_T, H_F, H_P, H_D, H_DIRTY = 1, 2, 3, 5, 11
  local n = #blob / 42
  local members = {}
  for i = 1, n do
    local at = i * 42 - 41
    members[i] = ssub(blob, at, at + 15)
  end
  -- which leases still hold (one ZMSCORE), or are held released (one more, for the others, if any);
  -- a lease settled twice in one blob counts once (dup)
  local scores = zmscore(K('leases'), members)
  local seen, gone, read, missing, missingAt = {}, {}, {}, {}, {}
  local valid, dup, hids = {}, {}, {}
  for i = 1, n do
    local m = members[i]
    local hid = sunpack('>I4', m)
    hids[i] = hid
    if not HIDK[hid] then HIDK[hid] = ssub(m, 1, 4) end
    if seen[m] then
      dup[i] = true
    else
      seen[m] = true
      local score = scores[i]
      if score then
        valid[i] = score
        gone[#gone + 1] = m
        read[#read + 1] = hid
      else
        missing[#missing + 1] = m
        missingAt[#missing] = i
      end
    end
  end
  if #missing > 0 then
    for k, score in ipairs(zmscore(K('held'), missing)) do
      if score then valid[missingAt[k]] = 'held' end
    end
  end
  if later then
    later.gone = gone
  else
    for at = 1, #gone, 1000 do rcall('ZREM', K('leases'), unpack(gone, at, mmin(#gone, at + 999))) end
  end
  hosts_read(read)
  batch_begin()
  local out, queued, pages = {}, 0, 0
  local released, unheld, lidGone = {}, {}, {}
  for i = 1, n do
    local m, hid, v = members[i], hids[i], valid[i]
    local done, counted, defer = sunpack('>BBd', blob, i * 42 - 9)
    local ok = 0
    if v and v ~= 'held' then
      -- the common case: a lease that holds
      ok = 1
      local h = load_host(hid)
      if done == 1 then
        lidGone[#lidGone + 1] = ssub(m, 5, 10)
      elseif done == 2 then
        released[#released + 1] = v
        released[#released + 1] = m
      else
        queued = queued + lease_requeue(blob, i, m, hid, h)
      end
      h[H_F], h[H_DIRTY] = h[H_F] - 1, true
      if counted == 0 then h[H_P], pages = h[H_P] - 1, pages - 1 end
      local t = now + h[H_D]
      if defer >= 0 and now + defer > t then t = now + defer end
      if t > h[H_T] then h[H_T] = t end
      place(hid, h, now)
    elseif v == 'held' then
      -- released earlier, its record now durable: done (a requeue puts it back)
      ok = 1
      if done ~= 2 then unheld[#unheld + 1] = m end
      -- (released again: it stays held until its expiry)
      if done == 1 then
        lidGone[#lidGone + 1] = ssub(m, 5, 10)
      elseif done == 0 then
        -- (its host was freed when it was released: placed again, its queue having changed)
        local h = load_host(hid)
        queued = queued + lease_requeue(blob, i, m, hid, h)
        place(hid, h, now)
      end
    elseif not dup[i] then
      local id, hash = lease_url(blob, i, m)
      -- a lease gone (expired), its URL back in its queue: the member there
      local back = queued_member(hid, hash, id)
      if back then
        -- the lease expired and its URL went back to the queue; no one took it since: this outcome stands
        ok = 1
        local h = load_host(hid)
        if done >= 1 then
          -- (released: taken as done at once, the lease being gone; a resend is answered as settled)
          rcall('ZREM', qk(hid), back)
          nb_lost(hid, h)
          rcall('ZREM', K('expired'), m)
          queued = queued - 1
          if counted == 1 then h[H_P], pages, h[H_DIRTY] = h[H_P] + 1, pages + 1, true end
        end
        if defer >= 0 and now + defer > h[H_T] then h[H_T], h[H_DIRTY] = now + defer, true end
        place(hid, h, now)
      elseif done ~= 0 and not rcall('ZSCORE', K('expired'), m) then
        -- the same settle sent again (the client resends commands after a reconnection): it stands
        -- (a lease in neither set that did not expire was settled)
        ok = 1
      end
    end
    out[i] = ok
  end
  batch_flush()
  -- (held ones that were confirmed or requeued go after those released join: see `later`)
  for at = 1, #released, 1000 do rcall('ZADD', K('held'), unpack(released, at, mmin(#released, at + 999))) end
  for at = 1, #unheld, 1000 do rcall('ZREM', K('held'), unpack(unheld, at, mmin(#unheld, at + 999))) end
  if later then later.lidGone = lidGone else lid_drop(lidGone) end
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
