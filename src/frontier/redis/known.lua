-- Known: ARGV[6..] pairs of host name, 16-byte URL hash. Returns per pair 0, or
-- {id, host id, state, depth, priority, life, inlinks, inlinkScore} (strings); a leased URL is IN_FLIGHT (1).
local out = {}
local a = 6
while ARGV[a] do
  local hid = redis.call('HGET', K('hosts'), ARGV[a])
  local r = hid and rec_get(hid, ARGV[a + 1])
  if r then
    local state = r[2]
    if state == QUEUED and not in_queue(hid, r[1]) then
      local _, _, done = ix_get(r[1])
      state = done and FETCHED or 1
    end
    out[#out + 1] = { num(r[1]), hid, num(state), num(r[3]), num(r[5]), num(r[4]), num(r[9]), num(r[10]) }
  else
    out[#out + 1] = 0
  end
  a = a + 2
end
return out
