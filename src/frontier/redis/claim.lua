-- Claim: ARGV[6] max URLs, ARGV[7] lease ms, ARGV[8] worker number, then what the client sent
-- since its last call, applied first: ARGV[9] priority updates (see apply_updates), ARGV[10] leases
-- to settle (see settle_leases), ARGV[11] the client's number for this call ('' none).
-- Returns {'urls', now, settled, <one string per lease>...} | {'wait', now, settled, until} |
-- {'budget', now, settled} | {'empty', now, settled}; `settled`: one byte (0 | 1) per lease settled.
-- 'budget' and 'empty' only once no lease is out (any worker's): until then, 'wait'.
-- A lease: its member (16 bytes: the host id first), the URL hash (16), expiry (big-endian double),
-- the length of the host's name (2 bytes), the name, then the URL's record as stored (u:<hid>,
-- MessagePack: the client decodes it, see redis-codec.ts decodeLease).
local function claim_now()
  local H_T, H_F, H_P, H_D, H_R, H_NB, H_LN, H_DIRTY, H_POPPED = 1, 2, 3, 5, 8, 9, 10, 11, 12
  local now = now_ms()
  local max, leaseMs, wno = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
  -- (the leases settled leave `leases` once this claim's joined it: see settle_leases)
  local settledLeases = {}
  local settled = apply_pending(ARGV[9], ARGV[10], now, settledLeases)
  rcall('HSET', K('workers'), wno, now)
  local pages = tonumber(rcall('GET', K('pages')) or 0)
  local queued = 0

  batch_begin()
  local expiredAny, goneSet = false, nil
  -- leases not settled in time, and released ones not confirmed in time: their URLs go back to their
  -- host's queue, their pages to the budget (a released one's host was freed when it was released)
  for _, set in ipairs({ 'leases', 'held' }) do
    for _, m in ipairs(rcall('ZRANGEBYSCORE', K(set), '-inf', now, 'LIMIT', 0, 1000)) do
      -- (a lease settled in the meantime is no longer in its set, or is one of settledLeases.gone)
      if goneSet == nil then
        goneSet = {}
        for _, g in ipairs(settledLeases.gone or {}) do goneSet[g] = true end
      end
      if not goneSet[m] then
        rcall('ZREM', K(set), m)
        local hid, id = lease_parse(m)
        local _, hash = ix_get(id)
        local r = rec_get(hid, hash)
        local h = load_host(hid)
        if r and r[2] == QUEUED then queued = queued + requeue(hid, h, r, hash) end
        -- no longer handed out; a late settle of this lease is refused (see settle_leases)
        rcall('SREM', K('lid'), ssub(m, 5, 10))
        rcall('ZADD', K('expired'), now, m)
        expiredAny = true
        if set == 'leases' then h[H_F] = h[H_F] - 1 end
        h[H_P], h[H_DIRTY] = h[H_P] - 1, true
        pages = pages - 1
        place(hid, h, now)
      end
    end
  end

  if expiredAny then
    rcall('ZREMRANGEBYSCORE', K('expired'), '-inf', now - 86400000)
    rcall('ZREMRANGEBYRANK', K('expired'), 0, -100001)
  end

  -- hosts whose time has come
  local woken = rcall('ZRANGEBYSCORE', K('sleep'), '-inf', now, 'LIMIT', 0, 1000)
  for i, hid in ipairs(woken) do woken[i] = tonumber(hid) end
  hosts_read(woken)
  for _, hid in ipairs(woken) do sched(hid, now) end
  batch_flush()
  batch_begin()

  local out = { 'urls', now, settled }
  local n = 0
  local cno = rcall('INCR', K('cno')) % TWO32
  local exp = now + leaseMs
  local expText, expB = sfmt('%d', exp), spack('>d', exp)
  local leaseArgs, lidArgs, nl, nout = {}, {}, 0, 3
  local by = spack('>I2I4', wno, cno) -- (the last 6 bytes of every lease member of this claim)
  local want = max
  if MAXPAGES > 0 then want = mmin(want, MAXPAGES - pages) end
  -- the best hosts, at most one per URL wanted (each gives at least one); each takes as many of its
  -- best URLs as it may have out, so a host is never due again within one claim
  -- (members only: their scores are not needed, and a score in a reply costs a printf; those taken
  -- leave `ready` by rank below, before the batch puts any of them back)
  local tops = {}
  if want > 0 then tops = rcall('ZRANGE', K('ready'), '0', sfmt('%d', want - 1)) end
  local hids = {}
  for i = 1, #tops do
    local hid = sunpack('>I4', tops[i], 31)
    hids[i] = hid
    -- (its 4 bytes, cut out: packing them costs more)
    if not HIDK[hid] then HIDK[hid] = ssub(tops[i], 31, 34) end
  end
  hosts_read(hids)
  local taken = 0
  for i = 1, #tops do
    local hid = hids[i]
    if n >= max or (MAXPAGES > 0 and pages >= MAXPAGES) then break end
    do
      taken = i
      local h = load_host(hid, true)
      h[H_R], h[H_POPPED] = '', true
      local room = max - n
      if CONC - h[H_F] < room then room = CONC - h[H_F] end
      if MAXHOST > 0 then room = mmin(room, MAXHOST - h[H_P]) end
      if MAXPAGES > 0 then room = mmin(room, MAXPAGES - pages) end
      local popped, k = nil, 0
      -- (read, then removed by rank: ZPOPMIN would reply each member's score, a printf even of a 0;
      -- one more read than taken: the queue's next first member, nb)
      if room > 0 then
        popped = rcall('ZRANGE', qk(hid), '0', room == 1 and '1' or sfmt('%d', room))
        k = #popped
        if k > room then
          k = room
          h[H_NB] = popped[k + 1]
        else
          h[H_NB] = ''
        end
        if k > 0 then rcall('ZREMRANGEBYRANK', qk(hid), '0', k == 1 and '0' or sfmt('%d', k - 1)) end
      end
      -- (what every lease of this host says of it: expiry, its name's length and name)
      local hostPart = k > 0 and expB .. h[H_LN]
      local hkey = hidkey(hid)
      for j = 1, k do
        -- (the queue member: key, id, hash; the lease member: host id, URL id, `by`)
        local qm = popped[j]
        local idk, hash = ssub(qm, 9, 14), ssub(qm, 15, 30)
        local m = hkey .. idk .. by
        nl = nl + 2
        leaseArgs[nl - 1], leaseArgs[nl] = expText, m
        lidArgs[nl / 2] = idk
        nout = nout + 1
        out[nout] = m .. hash .. hostPart .. rcall('HGET', uk(hid), hash)
      end
      h[H_F], h[H_P], h[H_DIRTY] = h[H_F] + k, h[H_P] + k, true
      if now + h[H_D] > h[H_T] then h[H_T] = now + h[H_D] end
      pages, n, queued = pages + k, n + k, queued - k
      place(hid, h, now)
    end
  end
  if taken > 0 then rcall('ZREMRANGEBYRANK', K('ready'), '0', sfmt('%d', taken - 1)) end
  batch_flush()
  for at = 1, nl, 1000 do rcall('ZADD', K('leases'), unpack(leaseArgs, at, mmin(nl, at + 999))) end
  for at = 1, #lidArgs, 1000 do rcall('SADD', K('lid'), unpack(lidArgs, at, mmin(#lidArgs, at + 999))) end
  local gone = settledLeases.gone or {}
  for at = 1, #gone, 1000 do rcall('ZREM', K('leases'), unpack(gone, at, mmin(#gone, at + 999))) end
  lid_drop(settledLeases.lidGone or {})
  if queued ~= 0 then rcall('INCRBY', K('queued'), queued) end
  rcall('SET', K('pages'), pages)

  if n > 0 then return out end
  local full = MAXPAGES > 0 and pages >= MAXPAGES
  local untl = nil
  if not full then
    local wake = rcall('ZRANGE', K('sleep'), 0, 0, 'WITHSCORES')
    if #wake > 0 then untl = tonumber(wake[2]) end
  end
  for _, set in ipairs({ 'leases', 'held' }) do
    local lease = rcall('ZRANGE', K(set), 0, 0, 'WITHSCORES')
    if #lease > 0 then
      -- another worker's settle may free a host or requeue a URL any time: ask again soon (or at the
      -- lease's expiry). With the budget spent, too: a lease that expires (its worker died) or is
      -- settled as not counted gives its page back, and the pages must then be fetched by someone
      local soon = mmin(tonumber(lease[2]), now + 200)
      if untl == nil or soon < untl then untl = soon end
    end
  end
  if untl == nil then return { full and 'budget' or 'empty', now, settled } end
  return { 'wait', now, settled, num(untl) }
end

-- A claim sent again (the client resends a command whose reply was lost when the connection broke,
-- and the server may have run it) gets the reply of the first run: its leases are not handed out twice.
-- (the call number and the reply in two fields: a claim reads only the number, the reply when resent)
local wno, call = tonumber(ARGV[8]), ARGV[11] or ''
if call ~= '' then
  if rcall('HGET', K('wlast'), wno) == call then return cmsgpack.unpack(rcall('HGET', K('wlast'), wno .. 'r')) end
end
local out = claim_now()
if call ~= '' then rcall('HSET', K('wlast'), wno, call, wno .. 'r', cmsgpack.pack(out)) end
return out
