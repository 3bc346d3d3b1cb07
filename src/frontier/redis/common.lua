-- Shared by every script of the Redis frontier (prepended to each). Keys (all under the crawl's
-- prefix P = 'tc:{<crawlId>}:', so one Cluster slot):
--   u:<hid>   hash: 16-byte URL hash -> cmsgpack record {id, state, depth, life, priority, hops,
--             parentId (0: none), anchor (false: none), inlinks, inlinkScore, url}. The seen-set.
--   q:<hid>   zset of the host's queued URLs: score -priority, member the id as 6 bytes big-endian,
--             so equal scores order by id = discovery sequence (first in, first out).
--   ix:<id/128> hash: id % 128 -> 4-byte host id .. 16-byte URL hash (finds a URL by id).
--   h:<hid>   hash: n name, d delay (ms; absent: the crawl's), t may be contacted from (server ms),
--             f leases out, s suspended, p pages counted, r its member in `ready`.
--   hosts     hash name -> host id; hid, seq, ltok: counters (host ids, URL ids, lease tokens).
--   ready     zset of hosts that may be contacted: score -priority of their best URL, member
--             6-byte id of that URL .. 4-byte host id (ties: the earlier URL first).
--   sleep     zset of hosts with queued URLs waiting for their time: score t, member host id.
--   leases    zset token -> expiry (server ms); lease: hash token -> host id, URL id, counted, worker.
--   queued, pages: counters; wl: hash worker -> leases out; workers: hash worker -> last claim (ms).
-- ARGV[1] prefix, ARGV[2] per-host concurrency, ARGV[3] pages per host (0: no limit),
-- ARGV[4] default delay (ms), ARGV[5] pages in all (0: no limit); the script's own from ARGV[6].
local P = ARGV[1]
local CONC = tonumber(ARGV[2])
local MAXHOST = tonumber(ARGV[3])
local DELAY = tonumber(ARGV[4])
local MAXPAGES = tonumber(ARGV[5])
local QUEUED, IN_FLIGHT, FETCHED = 0, 1, 2
local TWO32 = 4294967296

local function K(s) return P .. s end

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function num(x) return string.format('%.17g', x) end

local function idkey(id) return struct.pack('>I2I4', math.floor(id / TWO32), id % TWO32) end
local function idof(m, at)
  local hi, lo = struct.unpack('>I2I4', m, at or 1)
  return hi * TWO32 + lo
end

local function ix_put(id, hid, hash)
  redis.call('HSET', P .. 'ix:' .. math.floor(id / 128), id % 128, struct.pack('>I4', hid) .. hash)
end
local function ix_get(id)
  local v = redis.call('HGET', P .. 'ix:' .. math.floor(id / 128), id % 128)
  if not v then return nil, nil end
  return (struct.unpack('>I4', v)), string.sub(v, 5)
end

local function rec_get(hid, hash)
  local v = redis.call('HGET', P .. 'u:' .. hid, hash)
  if not v then return nil end
  return cmsgpack.unpack(v)
end
local function rec_put(hid, hash, r) redis.call('HSET', P .. 'u:' .. hid, hash, cmsgpack.pack(r)) end

local function host_id(name, cache)
  local hid = cache and cache[name]
  if hid then return hid end
  hid = redis.call('HGET', P .. 'hosts', name)
  if not hid then
    hid = redis.call('INCR', P .. 'hid')
    redis.call('HSET', P .. 'hosts', name, hid)
    redis.call('HSET', P .. 'h:' .. hid, 'n', name)
  end
  hid = tonumber(hid)
  if cache then cache[name] = hid end
  return hid
end

-- Puts a host where it belongs now: in `ready` with its best URL, in `sleep` until its time, or
-- in neither (nothing queued, suspended, over its budget, as many leases out as it may have).
local function sched(hid, now)
  local hk = P .. 'h:' .. hid
  local h = redis.call('HMGET', hk, 'r', 't', 'f', 's', 'p')
  if h[1] then
    redis.call('ZREM', P .. 'ready', h[1])
    redis.call('HDEL', hk, 'r')
  end
  redis.call('ZREM', P .. 'sleep', hid)
  if h[4] then return end
  if tonumber(h[3] or 0) >= CONC then return end
  if MAXHOST > 0 and tonumber(h[5] or 0) >= MAXHOST then return end
  local best = redis.call('ZRANGE', P .. 'q:' .. hid, 0, 0, 'WITHSCORES')
  if #best == 0 then return end
  local t = tonumber(h[2] or 0)
  if t > now then
    redis.call('ZADD', P .. 'sleep', t, hid)
    return
  end
  local m = best[1] .. struct.pack('>I4', hid)
  redis.call('ZADD', P .. 'ready', best[2], m)
  redis.call('HSET', hk, 'r', m)
end

-- Queues a URL whose record is `r` (state set to QUEUED here).
local function enqueue(hid, hash, r)
  r[2] = QUEUED
  rec_put(hid, hash, r)
  redis.call('ZADD', P .. 'q:' .. hid, -r[5], idkey(r[1]))
  redis.call('INCR', P .. 'queued')
end

local function lease_pack(hid, id, counted, worker)
  return struct.pack('>I4I2I4B', hid, math.floor(id / TWO32), id % TWO32, counted) .. worker
end
local function lease_unpack(v)
  local hid, hi, lo, counted = struct.unpack('>I4I2I4B', v)
  return hid, hi * TWO32 + lo, counted, string.sub(v, 12)
end

-- Ends a lease (removes it; the host has one lease fewer). Returns host id, URL id, counted, worker.
local function lease_end(tok, v)
  local hid, id, counted, worker = lease_unpack(v)
  redis.call('ZREM', P .. 'leases', tok)
  redis.call('HDEL', P .. 'lease', tok)
  redis.call('HINCRBY', P .. 'wl', worker, -1)
  redis.call('HINCRBY', P .. 'h:' .. hid, 'f', -1)
  return hid, id, counted, worker
end

-- Gives a page back to the budgets.
local function uncount(hid)
  redis.call('DECR', P .. 'pages')
  redis.call('HINCRBY', P .. 'h:' .. hid, 'p', -1)
end

-- The host may not be contacted before `t` (never earlier than it already may not).
local function not_before(hid, t)
  local hk = P .. 'h:' .. hid
  local cur = tonumber(redis.call('HGET', hk, 't') or 0)
  if t > cur then redis.call('HSET', hk, 't', t) end
end

local function host_delay(hid)
  return tonumber(redis.call('HGET', P .. 'h:' .. hid, 'd') or DELAY)
end
