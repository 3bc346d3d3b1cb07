import type { Lease, NewUrl } from './frontier.js';
import { UrlState } from './url-state.js';
import { TopicrawlError } from '../errors.js';

/**
 * A priority as the scripts take it: Redis refuses a score that is not a number, or so small that
 * parsing it underflows (a subnormal double: ERANGE), so those are refused here with the value, and
 * subnormals are 0 (the order among them is lost; no strategy gives such priorities on purpose).
 */
export function redisScore(p: number): number {
  if (!Number.isFinite(p)) throw new TopicrawlError('E_INTERNAL', `a priority that is not a finite number (${p}) cannot go to the shared frontier`);
  return Math.abs(p) < 2.2250738585072014e-308 ? 0 : p;
}

/** Encodes adds as one string for the intake script (layout in redis/intake.lua). */
export function encodeAdds(adds: readonly NewUrl[]): Buffer {
  const parts: Buffer[] = [];
  for (const u of adds) {
    const host = Buffer.from(u.host, 'utf8');
    const url = Buffer.from(u.url, 'utf8');
    const anchor = u.anchor == null ? null : Buffer.from(u.anchor, 'utf8');
    const head = Buffer.allocUnsafe(16 + 7 * 8 + 1 + 2 + 2 + 4);
    u.hash.copy(head, 0, 0, 16);
    let o = 16;
    for (const v of [u.depth, redisScore(u.priority), u.life, u.hops ?? 0, u.parentId ?? 0, u.inlinks ?? 0, u.inlinkScore ?? 0]) o = head.writeDoubleBE(v, o);
    o = head.writeUInt8(u.state ?? UrlState.QUEUED, o);
    o = head.writeUInt16BE(host.length, o);
    o = head.writeUInt16BE(url.length, o);
    head.writeUInt32BE(anchor ? anchor.length : 0xffffffff, o);
    parts.push(head, host, url);
    if (anchor) parts.push(anchor);
  }
  return Buffer.concat(parts);
}

/** Encodes priority updates for the scripts (apply_updates in redis/common.lua): id and priority as doubles. */
export function encodeUpdates(updates: readonly { id: number; priority: number }[]): Buffer {
  const b = Buffer.allocUnsafe(16 * updates.length);
  updates.forEach((u, i) => {
    b.writeDoubleBE(u.id, 16 * i);
    b.writeDoubleBE(redisScore(u.priority), 16 * i + 8);
  });
  return b;
}

/** A lease token: the lease's member in the `leases` zset (16 bytes) and the URL's hash (16 bytes), in hex. */
export function tokenBytes(token: string): Buffer {
  const b = Buffer.from(token, 'hex');
  if (b.length !== 32) throw new Error(`not a lease token of this frontier: ${token}`);
  return b;
}

/** What a settle entry says of its lease (redis/leases.lua): back to the queue, done, or released (done, its record not yet durable). */
export const SETTLE_REQUEUE = 0;
export const SETTLE_DONE = 1;
export const SETTLE_RELEASE = 2;

/** One settle entry (layout in redis/leases.lua). */
export function encodeSettle(token: string, what: 0 | 1 | 2, counted: boolean, deferMs: number | null): Buffer {
  const b = Buffer.allocUnsafe(42);
  tokenBytes(token).copy(b, 0);
  b.writeUInt8(what, 32);
  b.writeUInt8(counted ? 1 : 0, 33);
  b.writeDoubleBE(deferMs ?? -1, 34);
  return b;
}

/** A lease as the claim script returns it (layout in redis/claim.lua). */
export function decodeLease(b: Buffer): Lease {
  const d = (k: number) => b.readDoubleBE(32 + 8 * k);
  const hostLen = b.readUInt16BE(96);
  const urlLen = b.readUInt32BE(98);
  const anchorLen = b.readUInt32BE(102);
  let o = 106;
  const host = b.toString('utf8', o, (o += hostLen));
  const url = b.toString('utf8', o, (o += urlLen));
  const id = d(2);
  const parent = d(7);
  return {
    token: b.toString('hex', 0, 32), expiresAt: d(0), hostId: d(1), host, id, url, depth: d(3), priority: d(4), life: d(5), seq: id,
    hops: d(6), parentId: parent === 0 ? null : parent, anchor: anchorLen === 0xffffffff ? null : b.toString('utf8', o, o + anchorLen),
  };
}
