-- Shared by every script of the Redis frontier (prepended to each). Keys (all under the crawl's
-- prefix P = 'tc:{<crawlId>}:', so one Cluster slot; <hid> is a host id as 4 bytes, big-endian, and
-- <id/32> a number as 6 bytes, see names()):
--   u:<hid>   hash: 16-byte URL hash -> cmsgpack record {id, state, depth, life, priority, hops,
--             parentId (0: none), anchor (false: none), inlinks, inlinkScore, url, scheme}. The
--             seen-set. `url` is the part after 'http://<host>' (scheme 1) or 'https://<host>'
--             (scheme 2), or the whole URL (scheme 0). A URL handed out keeps state QUEUED in its
--             record and is not in q:<hid>: leased while it has an entry in `lid`, done once not.
--   q:<hid>   zset of the host's queued URLs, all of score 0: ordered by their members (30 bytes,
--             compared byte by byte), the priority's 8 key bytes (qkey), the 6-byte id, then the
--             16-byte URL hash: by priority, highest first, then by id = discovery sequence (first
--             in, first out; ids are unique, so the hash never decides). The hash is there so that a
--             claim finds the URL's record without reading ix.
--   ix:<id/32> hash: id % 32 -> 4-byte host id .. 16-byte URL hash (finds a URL by id). Written
--             when the URL is added, never after.
--   h:<hid>   string, the host's state packed (struct '>di4i4i4BBBc34Bc30Hc0'): t may be
--             contacted from (server ms), f leases out, p pages counted, d delay (ms; -1: the
--             crawl's), s suspended, w in `sleep`, whether it is in `ready` and its member there (r),
--             nb: whether the first member of q:<hid> is known (0 no, 1 yes, 2 the queue is empty)
--             and that member, then the length of its name and the name. (nb, when known, is
--             exactly that member: every change of the queue updates it or makes it unknown, so that
--             placing a host needs no ZRANGE of its queue; a claim learns it by reading one member
--             more than it takes.)
--   hosts     hash name -> host id; hid, seq, cno, wno: counters (host, URL, claim, worker numbers;
--             seq also counts URL ids reserved by clients, see redis-id-blocks.ts); urls: URLs known.
--   ready     zset of hosts that may be contacted, all of score 0: member that of their best URL in
--             q:<hid> then the 4-byte host id, so ordered as their best URLs are.
--             (Score 0 in both: a score in a reply costs a printf of a double, its text a string
--             interned in Lua, and one sent a strtod; a 0 is stored in a byte.)
--   sleep     zset of hosts with queued URLs waiting for their time: score t, member host id.
--   suspended set of the ids of the hosts suspended (s), for monitoring (hosts.lua states).
--   leases    zset: member 4-byte host id, 6-byte URL id, 2-byte worker number, 4-byte claim number;
--             score its expiry (server ms).
--   held      zset: leases released (their page handled, its record not yet durable; their host
--             freed), same members and scores, until a done confirms them or they expire.
--   lid       set of the 6-byte ids of the URLs whose lease is in `leases` or `held` (a URL has one
--             at most): what a URL out of its queue is (leased, or done). Added by a claim in one
--             SADD for all its leases, removed by the settles in one SREM (after the next claim's
--             SADD: see settle_leases). A set, not a hash of the leases: Redis keeps a hash of up to
--             hash-max-listpack-entries (512 by default) as a list it searches at every
--             write, while a claim's leases are hundreds.
--   expired   zset: members of the leases that expired (their URLs served again), score when: a
--             late settle of one is refused, one of a lease settled before is answered as then.
--             Kept 24 hours, at most 100,000.
--   epoch     string: host ids learnt by a client hold while it is unchanged (hosts.lua).
--   queued, pages: counters; workers: hash worker number -> last claim (ms); wnames/wnos: numbers <-> names;
--   wleft: worker number -> when it left the crawl (its clock, ms; written by the client, redis-frontier.ts close).
--   wlast     hash worker number -> its last claim's call number, and <worker number>r -> that claim's
--             reply (cmsgpack: a resent claim gets it again).
-- ARGV[1] prefix, ARGV[2] per-host concurrency, ARGV[3] pages per host (0: no limit),
-- ARGV[4] default delay (ms), ARGV[5] pages in all (0: no limit); the script's own from ARGV[6].
-- (the library functions the scripts call per URL, as locals: a global's lookup costs two table reads)
local rcall, spack, sunpack, ssub, floor, mmin, sfmt = redis.call, struct.pack, struct.unpack, string.sub, math.floor, math.min, string.format
local P = ARGV[1]
local CONC = tonumber(ARGV[2])
local MAXHOST = tonumber(ARGV[3])
local DELAY = tonumber(ARGV[4])
local MAXPAGES = tonumber(ARGV[5])
local QUEUED, FETCHED = 0, 2
local TWO32 = 4294967296

local function K(s) return P .. s end

local function now_ms()
  local t = rcall('TIME')
  return tonumber(t[1]) * 1000 + floor(tonumber(t[2]) / 1000)
end

local function num(x) return sfmt('%.17g', x) end

local function idkey(id) return spack('>I2I4', floor(id / TWO32), id % TWO32) end
local function idof(m, at)
  local hi, lo = sunpack('>I2I4', m, at or 1)
  return hi * TWO32 + lo
end
-- (memoised for the script run: a host's id is packed for each of its keys, its `ready` member, ...)
local HIDK = {}
local function hidkey(hid)
  local k = HIDK[hid]
  if not k then
    k = spack('>I4', hid)
    HIDK[hid] = k
  end
  return k
end

-- The names of a host's keys and of id buckets, made once per script run: names('q:', hidkey)(hid)
-- is P .. 'q:' .. the host id as 4 bytes (ix buckets: idkey, 6 bytes). Binary, not decimal: Lua
-- writes a number into a string with sprintf('%.14g'), which costs more than the command it names.
local function names(kind, encode)
  local made = {}
  return function(n)
    local k = made[n]
    if not k then
      k = P .. kind .. encode(n)
      made[n] = k
    end
    return k
  end
end
local qk, hk, uk, ixb, IXF = names('q:', hidkey), names('h:', hidkey), names('u:', hidkey), names('ix:', idkey), {}
-- the field in its ix bucket of an id's number there (0-31)
local function ixf(n)
  local f = IXF[n]
  if not f then
    f = tostring(n)
    IXF[n] = f
  end
  return f
end
-- the bucket key and field of an id in ix
-- ids per ix bucket: 32 keeps a bucket's listpack short (a lookup scans it), for about 2 bytes
-- more per URL than 128 (measured: 124 against 122 bytes per queued URL)
local IXN = 32
local function ixk(id)
  return ixb(floor(id / IXN)), ixf(id % IXN)
end

-- A URL's key in its host's queue, the first 8 bytes of its member (the member: those, then
-- idkey(id)): the priority's 64 bits, ordered as the priority descending (IEEE 754 doubles order as
-- their bits once negatives are inverted). Members of equal score order as their bytes, so the order
-- is exactly that of the priorities, then of the ids. redis-codec.ts (queueKey) computes the same
-- for the adds.
local function qkey(p)
  if p == 0 then p = 0 end -- (-0 as 0)
  local b1, b2, b3, b4, b5, b6, b7, b8 = string.byte(spack('>d', p), 1, 8)
  if b1 < 128 then
    -- p >= 0: all bits inverted, then the sign bit (higher priorities first, after them the negatives)
    b1, b2, b3, b4, b5, b6, b7, b8 = 127 - b1, 255 - b2, 255 - b3, 255 - b4, 255 - b5, 255 - b6, 255 - b7, 255 - b8
  end
  return string.char(b1, b2, b3, b4, b5, b6, b7, b8)
end
-- the member in q:<hid> of a URL from its record and hash
local function qmember(r, hash)
  return qkey(r[5]) .. idkey(r[1]) .. hash
end
-- whether a queue member (8 key bytes, the 6-byte id, the hash) comes before another: their first 14
-- bytes compared (ids are unique)
-- (as numbers: Lua compares strings with strcoll, which follows the server's locale)
local function qbefore(m1, m2)
  local a1, a2, a3, a4 = sunpack('>I4I4I2I4', m1)
  local b1, b2, b3, b4 = sunpack('>I4I4I2I4', m2)
  if a1 ~= b1 then return a1 < b1 end
  if a2 ~= b2 then return a2 < b2 end
  if a3 ~= b3 then return a3 < b3 end
  return a4 < b4
end

-- host id, URL id, worker number of a lease member
local function lease_parse(m)
  local hid, hi, lo, wno = sunpack('>I4I2I4I2', m)
  return hid, hi * TWO32 + lo, wno
end

-- host id and URL hash of a URL by id (nil if unknown)
local function ix_get(id)
  local k, f = ixk(id)
  local v = rcall('HGET', k, f)
  if not v then return nil, nil end
  return (sunpack('>I4', v)), ssub(v, 5, 20)
end
-- removes these URLs from `lid` (6-byte ids), an SREM per 1000
local function lid_drop(idks)
  for at = 1, #idks, 1000 do rcall('SREM', K('lid'), unpack(idks, at, mmin(#idks, at + 999))) end
end

-- a number for a reply: integers as they are, others as strings (Lua numbers become integer replies)
local function rnum(x)
  if x == floor(x) and x > -9007199254740992 and x < 9007199254740992 then return x end
  return sfmt('%.17g', x)
end

-- HMGET and ZMSCORE over any number of fields (calls of at most 1000): a list with one entry per field
-- (false: absent).
local function many(cmd, key, fields)
  local out = {}
  for at = 1, #fields, 1000 do
    local part = rcall(cmd, key, unpack(fields, at, mmin(#fields, at + 999)))
    for i = 1, #part do out[at + i - 1] = part[i] end
  end
  return out
end
local function zmscore(key, members) return many('ZMSCORE', key, members) end

-- The records of some URLs of one host by hash (one HMGET), decoded (false: unknown), and which of
-- those whose record says QUEUED are in the host's queue (one ZMSCORE): inq[i] true; the others are
-- leased or done; and the queue members of those (mem[i], see qmember).
local function host_records(hid, hashes)
  local recs = many('HMGET', uk(hid), hashes)
  local qm, qat, mem = {}, {}, {}
  for i, v in ipairs(recs) do
    if v then
      local r = cmsgpack.unpack(v)
      recs[i] = r
      if r[2] == QUEUED then
        mem[i] = qmember(r, hashes[i])
        qm[#qm + 1] = mem[i]
        qat[#qat + 1] = i
      end
    end
  end
  local inq = {}
  for j, score in ipairs(many('ZMSCORE', qk(hid), qm)) do inq[qat[j]] = score ~= false end
  return recs, inq, mem
end

local function rec_get(hid, hash)
  local v = rcall('HGET', uk(hid), hash)
  if not v then return nil end
  return cmsgpack.unpack(v)
end
local function rec_put(hid, hash, r) rcall('HSET', uk(hid), hash, cmsgpack.pack(r)) end
-- the member in its host's queue of the URL of this host, hash and id, if it is there (else nil)
local function queued_member(hid, hash, id)
  local r = rec_get(hid, hash)
  if r == nil or r[1] ~= id then return nil end
  local m = qmember(r, hash)
  if rcall('ZSCORE', qk(hid), m) ~= false then return m end
end

local NO_MEMBER, NO_NB = string.rep('\0', 34), string.rep('\0', 30)

-- The state of a host (nil if there is no such host): an array of t, f, p, own, d (own, or the
-- crawl's delay), s, w (booleans), r, nb, ln, dirty, popped (see h:<hid> above; dirty: f, p or t
-- changed since placed; popped: taken off `ready` by rank), which the functions that use it index by
-- local constants (H_T = 1, H_F = 2, ... H_POPPED = 12). An array, not named fields: Lua 5.1 fills an
-- array constructor in one instruction and named fields one by one, and a constant in a local costs
-- nothing where a shared one (an upvalue) is one more instruction per access (callgrind: 153,400 ->
-- 150,500 instructions a URL claimed and settled). nb: the first member of the host's queue, '' if
-- it is empty, nil if not known. (Its strings cut out only when set: each costs an interned
-- string, and a claim drops r and nb at once.)
-- `claiming`: for a claim, which takes the host off `ready` by rank and learns its queue's first
-- member: r is not read, and nb is left unknown.
local function parse_host(v, claiming)
  local t, f, p, own, s, w, inr = sunpack('>di4i4i4BBB', v)
  local r, nb = '', nil
  if not claiming then
    local nbk = string.byte(v, 58)
    if inr == 1 then r = ssub(v, 24, 57) end
    if nbk == 1 then nb = ssub(v, 59, 88) elseif nbk == 2 then nb = '' end
  end
  -- (ln: the name's length, 2 bytes, then the name: as stored, and as a lease names its host)
  return { t, f, p, own, own >= 0 and own or DELAY, s == 1, w == 1, r, nb, ssub(v, 89), false, false }
end
-- Host states are read once per script run and written once at its end: HS holds those read or
-- made (hid -> state), HDIRTY those changed since (hid -> true). Every read goes through HS
-- (hosts_read reads many in one MGET); save_host only marks; hosts_flush() writes the changed ones,
-- an MSET per 500 (the script's source ends with it, see redis-connection.ts).
local HS, HDIRTY, HRAW = {}, {}, {}
-- a host's state (nil if there is no such host; `claiming`: see parse_host)
local function load_host(hid, claiming)
  local h = HS[hid]
  if h then return h end
  local v = HRAW[hid]
  if v then
    HRAW[hid] = nil
  else
    v = rcall('GET', hk(hid))
    if not v then return nil end
  end
  h = parse_host(v, claiming)
  HS[hid] = h
  return h
end
-- reads the states of these hosts not read yet, one MGET per 1000 (kept raw: decoded when loaded)
-- (numeric loops: ipairs calls a C function per step)
local function hosts_read(hids)
  local want, n = {}, 0
  for i = 1, #hids do
    local hid = hids[i]
    if HS[hid] == nil and HRAW[hid] == nil then
      n = n + 1
      want[n] = hid
    end
  end
  for i = 1, n, 1000 do
    local keys = {}
    for j = i, mmin(n, i + 999) do keys[j - i + 1] = hk(want[j]) end
    local vals = rcall('MGET', unpack(keys))
    for k = 1, #vals do
      local v = vals[k]
      if v then HRAW[want[i + k - 1]] = v end
    end
  end
end

local function save_host(hid, h)
  local H_DIRTY = 11
  HS[hid], HDIRTY[hid] = h, true
  h[H_DIRTY] = false
end
local function hosts_flush()
  local H_T, H_F, H_P, H_OWN, H_S, H_W, H_R, H_NB, H_LN = 1, 2, 3, 4, 6, 7, 8, 9, 10
  local args, k = {}, 0
  for hid in pairs(HDIRTY) do
    local h = HS[hid]
    local r, nb = h[H_R], h[H_NB]
    args[k + 1] = hk(hid)
    args[k + 2] = spack('>di4i4i4BBBc34Bc30', h[H_T], h[H_F], h[H_P], h[H_OWN], h[H_S] and 1 or 0, h[H_W] and 1 or 0, r ~= '' and 1 or 0,
      r ~= '' and r or NO_MEMBER, nb == nil and 0 or (nb == '' and 2 or 1), (nb == nil or nb == '') and NO_NB or nb) .. h[H_LN]
    k = k + 2
  end
  for at = 1, #args, 1000 do rcall('MSET', unpack(args, at, mmin(#args, at + 999))) end
  HDIRTY = {}
end

local function host_id(name, cache)
  local hid = cache and cache[name]
  if hid then return hid end
  hid = rcall('HGET', P .. 'hosts', name)
  if not hid then
    hid = rcall('INCR', P .. 'hid')
    rcall('HSET', P .. 'hosts', name, hid)
    save_host(hid, { 0, 0, 0, -1, DELAY, false, false, '', '', spack('>H', #name) .. name, false, false })
  end
  hid = tonumber(hid)
  if cache then cache[name] = hid end
  return hid
end

-- Changes of `ready` and `sleep` are gathered while a batch is open (member -> score, or false:
-- removed; the last change of a member wins) and written by batch_flush() in a few commands.
local BATCH = nil
local function batch_begin() BATCH = { ready = {}, sleep = {} } end
local function flush_set(key, changes)
  local add, rem = {}, {}
  for m, score in pairs(changes) do
    if score then
      add[#add + 1] = score
      add[#add + 1] = m
    else
      rem[#rem + 1] = m
    end
  end
  for at = 1, #rem, 1000 do rcall('ZREM', key, unpack(rem, at, mmin(#rem, at + 999))) end
  for at = 1, #add, 1000 do rcall('ZADD', key, unpack(add, at, mmin(#add, at + 999))) end
end
local function batch_flush()
  if not BATCH then return end
  flush_set(P .. 'ready', BATCH.ready)
  flush_set(P .. 'sleep', BATCH.sleep)
  BATCH = nil
end
-- (m: a string, the member; one key per member in the batch)
local function zset(which, m, score)
  if BATCH then
    BATCH[which][m] = score
  elseif score then
    rcall('ZADD', P .. which, score, m)
  else
    rcall('ZREM', P .. which, m)
  end
end

-- A host's queue gained member m: its first member, if known, is m if m comes before it.
local function nb_gained(hid, h, m)
  local H_NB = 9
  local nb = h[H_NB]
  if nb ~= nil and (nb == '' or qbefore(m, nb)) then
    h[H_NB] = m
    save_host(hid, h)
  end
end
-- A host's queue changed otherwise: its first member is no longer known.
local function nb_lost(hid, h)
  local H_NB = 9
  if h[H_NB] ~= nil then
    h[H_NB] = nil
    save_host(hid, h)
  end
end

-- Puts a host where it belongs now: in `ready` with its best URL, in `sleep` until its time, or in
-- neither (nothing queued, suspended, over its budget, as many leases out as it may have). Saves
-- the host's state (written at the script's end) when it changed (dirty: f, p or t did; popped: it was taken off `ready`
-- already, its stored r is stale). Its best URL: nb when known, else read (and then known).
local function place(hid, h, now)
  local H_T, H_F, H_P, H_S, H_W, H_R, H_NB, H_DIRTY, H_POPPED = 1, 2, 3, 6, 7, 8, 9, 11, 12
  local nr, sleeping, learnt = '', false, false
  if not h[H_S] and h[H_F] < CONC and (MAXHOST == 0 or h[H_P] < MAXHOST) then
    local best = h[H_NB]
    if best == nil then
      best = rcall('ZRANGE', qk(hid), '0', '0')[1] or ''
      h[H_NB], learnt = best, true
    end
    if best ~= '' then
      if h[H_T] > now then sleeping = true else nr = best .. hidkey(hid) end
    end
  end
  if nr == h[H_R] and not h[H_POPPED] and sleeping == h[H_W] and not (sleeping and h[H_DIRTY]) then
    if h[H_DIRTY] or learnt then save_host(hid, h) end
    return
  end
  if h[H_R] ~= '' and h[H_R] ~= nr and not h[H_POPPED] then zset('ready', h[H_R], false) end
  if nr ~= '' then zset('ready', nr, '0') end
  -- (`sleep`'s members are host ids as text: one key per member in a batch)
  if sleeping then zset('sleep', tostring(hid), h[H_T])
  elseif h[H_W] then zset('sleep', tostring(hid), false) end
  h[H_R], h[H_W], h[H_DIRTY], h[H_POPPED] = nr, sleeping, false, false
  save_host(hid, h)
end

-- Places hosts that only gained URLs since they were placed: `gained` maps each of `hids` to the
-- queue member of the best of them (see qkey; false: the host had other changes, and is placed apart). A host in `ready` stays there unless that one comes before
-- its best (qbefore); one asleep before its time sleeps on (its first member updated if known and
-- passed); others are placed anew. Their states are read in one MGET per 1000 hosts, and those not
-- changed yet in this run are only decoded as far as that decision needs (offsets in the h:<hid>
-- layout: w byte 22, in ready 23, r 24-57, nb known 58, nb 59-88).
local function place_gained(gained, all, now)
  local H_T, H_W, H_R, H_NB = 1, 7, 8, 9
  local hids = {}
  for _, hid in ipairs(all) do
    if gained[hid] then hids[#hids + 1] = hid end
  end
  hosts_read(hids)
  for _, hid in ipairs(hids) do
    local g = gained[hid]
    local h, v = HS[hid], HRAW[hid]
    -- in `ready` with its best URL's member (its first 30 bytes there); else asleep until its time
    local inr, m, asleep, nbk, nb
    if h then
      inr = h[H_R] ~= ''
      if inr then m = h[H_R] end
      asleep = h[H_W] and h[H_T] > now
    else
      inr = string.byte(v, 23) == 1
      if inr then m = ssub(v, 24, 53) end
      asleep = string.byte(v, 22) == 1 and sunpack('>d', v, 1) > now
    end
    if inr then
      if qbefore(g, m) then
        h = load_host(hid)
        zset('ready', h[H_R], false)
        h[H_R] = g .. hidkey(hid)
        zset('ready', h[H_R], '0')
        -- (the queue's first member was m: now g)
        h[H_NB] = g
        save_host(hid, h)
      end
    elseif asleep then
      if h then
        nb_gained(hid, h, g)
      else
        nbk = string.byte(v, 58)
        if nbk == 2 or (nbk == 1 and qbefore(g, ssub(v, 59, 88))) then nb_gained(hid, load_host(hid), g) end
      end
    else
      h = load_host(hid)
      nb_gained(hid, h, g)
      place(hid, h, now)
    end
  end
end

local function sched(hid, now) place(hid, load_host(hid), now) end
-- places a host whose queue changed in other ways than gaining URLs
local function resched(hid, now)
  local h = load_host(hid)
  nb_lost(hid, h)
  place(hid, h, now)
end

-- Queues a URL of host hid (state h) again (its record says QUEUED). Returns 1 if it was not in the queue.
local function requeue(hid, h, r, hash)
  local m = qmember(r, hash)
  local added = rcall('ZADD', qk(hid), '0', m)
  if added == 1 then nb_gained(hid, h, m) end
  return added
end

-- Priority updates the strategy decided on its own: `blob` holds per URL its id and new priority
-- (big-endian doubles). Applied to queued URLs (a leased URL's record only); their hosts are placed again.
local function apply_updates(blob, now)
  if blob == nil or #blob == 0 then return end
  local touched = {}
  for at = 1, #blob, 16 do
    local id, p = sunpack('>dd', blob, at)
    local hid, hash = ix_get(id)
    local r = hash and rec_get(hid, hash)
    if r and r[2] == QUEUED and r[5] ~= p then
      local was = qmember(r, hash)
      r[5] = p
      rec_put(hid, hash, r)
      -- (a leased URL is not in its queue: its record only)
      if rcall('ZREM', qk(hid), was) == 1 then
        rcall('ZADD', qk(hid), '0', qmember(r, hash))
        touched[hid] = true
      end
    end
  end
  local hids = {}
  for hid in pairs(touched) do hids[#hids + 1] = hid end
  hosts_read(hids)
  batch_begin()
  for _, hid in ipairs(hids) do resched(hid, now) end
  batch_flush()
end
