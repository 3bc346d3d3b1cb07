-- Known: ARGV[6] and ARGV[7] what the client sent since its last call (see apply_pending), then
-- ARGV[8..] pairs of host name, 16-byte URL hash. Returns the pending settles' results (a string, see
-- apply_pending), then per pair '' (unknown), or its id, host id, state, depth, priority, life,
-- inlinks, inlinkScore as big-endian doubles (64 bytes); a leased URL is IN_FLIGHT (1). Reads a
-- host's records and queue entries in one call each.
local settled = apply_pending(ARGV[6], ARGV[7], now_ms())
local out = {}
local hids, groups = {}, {}
local a, n = 8, 0
while ARGV[a] do
  n = n + 1
  out[n] = ''
  local name = ARGV[a]
  local hid = hids[name]
  if hid == nil then
    hid = rcall('HGET', K('hosts'), name)
    hids[name] = hid
    if hid then groups[hid] = {} end
  end
  if hid then
    local g = groups[hid]
    g[#g + 1] = n
  end
  a = a + 2
end
for hid, at in pairs(groups) do
  local hashes = {}
  for k, i in ipairs(at) do hashes[k] = ARGV[7 + 2 * i] end
  local recs, inq = host_records(hid, hashes)
  for k, r in ipairs(recs) do
    if r then
      local state = r[2]
      if state == QUEUED and not inq[k] then
        -- out of its queue: leased while its lease is out (or held: see lid), else fetched
        state = rcall('SISMEMBER', K('lid'), idkey(r[1])) == 1 and 1 or FETCHED
      end
      out[at[k]] = spack('>dddddddd', r[1], hid, state, r[3], r[5], r[4], r[9], r[10])
    end
  end
end
local reply = { settled }
for i = 1, n do reply[i + 1] = out[i] end
return reply
