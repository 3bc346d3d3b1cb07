-- Settle: ARGV[6] priority updates (see apply_updates), ARGV[7] leases (see settle_leases).
-- Applies the updates, then settles; returns per lease 1 or 0 (see settle_leases).
local now = now_ms()
apply_updates(ARGV[6], now)
return settle_leases(ARGV[7], now)
