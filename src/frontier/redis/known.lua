-- Known: ARGV[6..] pairs of host name, 16-byte URL hash. Returns per pair 0, or
-- {id, host id, state, depth, priority, life, inlinks, inlinkScore} (strings).
local out = {}
local a = 6
while ARGV[a] do
  local hid = redis.call('HGET', K('hosts'), ARGV[a])
  local r = hid and rec_get(hid, ARGV[a + 1])
  if r then
    out[#out + 1] = { num(r[1]), hid, num(r[2]), num(r[3]), num(r[5]), num(r[4]), num(r[9]), num(r[10]) }
  else
    out[#out + 1] = 0
  end
  a = a + 2
end
return out
