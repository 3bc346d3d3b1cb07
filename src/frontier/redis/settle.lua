-- Settle: ARGV[6] priority updates, ARGV[7] leases: what the client sent with no other call to ride
-- (see apply_pending). Returns per lease 1 or 0 (see settle_leases).
local now = now_ms()
apply_updates(ARGV[6], now)
return settle_leases(ARGV[7], now)
