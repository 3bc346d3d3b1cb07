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

const keyBytes = Buffer.alloc(8);
/**
 * A URL's key in its host's queue on the shared frontier from its priority, as qkey in
 * redis/common.lua computes it: the priority's 64 bits ordered as the priority descending, the first
 * 8 bytes of its member there (before the id; the members, all of score 0, order as their bytes).
 * Orders exactly as the priorities do, highest first. (The buffer is overwritten by the next call.)
 */
export function queueKey(p: number): Buffer {
  const b = keyBytes;
  b.writeDoubleBE(p === 0 ? 0 : p, 0);
  if (b[0] < 128) {
    // p >= 0: every bit inverted, then the sign bit (the highest priorities first, negatives after)
    b[0] = 127 - b[0];
    for (let i = 1; i < 8; i++) b[i] = 255 - b[i];
  }
  return b;
}

/** The length of `v` in MessagePack as Lua's cmsgpack writes it (integers as such, doubles as float 32 when exact). */
function mpNumberLength(v: number): number {
  if (Number.isSafeInteger(v)) {
    const m = Math.abs(v);
    if (v >= 0 ? m < 128 : m <= 32) return 1;
    if (v >= 0 ? m < 256 : m <= 128) return 2;
    if (v >= 0 ? m < 65536 : m <= 32768) return 3;
    if (v >= 0 ? m < 2 ** 32 : m <= 2 ** 31) return 5;
    return 9;
  }
  return Math.fround(v) === v ? 5 : 9;
}

function mpNumber(b: Buffer, o: number, v: number): number {
  if (Number.isSafeInteger(v)) {
    if (v >= 0) {
      if (v < 128) return b.writeUInt8(v, o);
      if (v < 256) return b.writeUInt8(v, b.writeUInt8(0xcc, o));
      if (v < 65536) return b.writeUInt16BE(v, b.writeUInt8(0xcd, o));
      if (v < 2 ** 32) return b.writeUInt32BE(v, b.writeUInt8(0xce, o));
      return b.writeBigUInt64BE(BigInt(v), b.writeUInt8(0xcf, o));
    }
    if (v >= -32) return b.writeInt8(v, o);
    if (v >= -128) return b.writeInt8(v, b.writeUInt8(0xd0, o));
    if (v >= -32768) return b.writeInt16BE(v, b.writeUInt8(0xd1, o));
    if (v >= -(2 ** 31)) return b.writeInt32BE(v, b.writeUInt8(0xd2, o));
    return b.writeBigInt64BE(BigInt(v), b.writeUInt8(0xd3, o));
  }
  if (Math.fround(v) === v) return b.writeFloatBE(v, b.writeUInt8(0xca, o));
  return b.writeDoubleBE(v, b.writeUInt8(0xcb, o));
}

const mpStringHead = (n: number) => (n < 32 ? 1 : n < 256 ? 2 : n < 65536 ? 3 : 5);

/** Writes the head of a MessagePack string of `n` bytes. */
function mpStringAt(b: Buffer, o: number, n: number): number {
  if (n < 32) return b.writeUInt8(0xa0 | n, o);
  if (n < 256) return b.writeUInt8(n, b.writeUInt8(0xd9, o));
  if (n < 65536) return b.writeUInt16BE(n, b.writeUInt8(0xda, o));
  return b.writeUInt32BE(n, b.writeUInt8(0xdb, o));
}

/** A URL as its record stores it (redis/common.lua, u:<hid>): the part after the scheme and host, and the scheme (1 http, 2 https, 0 whole URL). */
function urlRest(url: string, host: string): [string, number] {
  if (url.startsWith('http://') && url.startsWith(host, 7)) return [url.slice(7 + host.length), 1];
  if (url.startsWith('https://') && url.startsWith(host, 8)) return [url.slice(8 + host.length), 2];
  return [url, 0];
}

/** Fixed part of an add (see encodeAdds): host id, hash, queue member (key, id, hash), id, state, lengths of host and record. */
const ADD_HEAD = 4 + 16 + 30 + 8 + 1 + 2 + 4;

/**
 * Encodes adds as one string for the intake script (layout in redis/intake.lua): the crawl's
 * `epoch` in which the host ids were learnt and the ids reserved, then the adds. Each carries its
 * member in its host's queue (see queueKey); its record (u:<hid> in
 * redis/common.lua) in MessagePack, whole when `ids` gives its id (reserved by the client), else but
 * for the id, which the script gives and puts in front; and its host's id when `hostId` knows it,
 * else the host's name. Returns the string and the indexes
 * of the adds sent by name (the script answers their host ids, in that order).
 */
export function encodeAdds(
  adds: readonly NewUrl[], hostId: (host: string) => number | undefined = () => undefined, epoch = '', ids?: readonly number[],
): { blob: Buffer; byName: number[] } {
  const byName: number[] = [];
  let named = false;
  const rows: { hid: number; rest: string; scheme: number; hostLen: number; restLen: number; anchorLen: number; len: number }[] = [];
  let total = 0;
  adds.forEach((u, i) => {
    const hid = hostId(u.host) ?? 0;
    if (hid === 0) byName.push(i);
    else named = true;
    const [rest, scheme] = urlRest(u.url, u.host);
    const hostLen = hid === 0 ? Buffer.byteLength(u.host) : 0;
    const restLen = Buffer.byteLength(rest);
    const anchorLen = u.anchor == null ? -1 : Buffer.byteLength(u.anchor);
    // (with an id, the record is whole: array head and id first)
    const id = ids?.[i] ?? 0;
    let len = restLen + mpStringHead(restLen) + 1 + (anchorLen >= 0 ? anchorLen + mpStringHead(anchorLen) : 1) + (id > 0 ? 1 + mpNumberLength(id) : 0);
    len += mpNumberLength(u.state ?? UrlState.QUEUED) + mpNumberLength(u.depth) + mpNumberLength(u.life) + mpNumberLength(redisScore(u.priority));
    len += mpNumberLength(u.hops ?? 0) + mpNumberLength(u.parentId ?? 0) + mpNumberLength(u.inlinks ?? 0) + mpNumberLength(u.inlinkScore ?? 0);
    rows.push({ hid, rest, scheme, hostLen, restLen, anchorLen, len });
    total += ADD_HEAD + hostLen + len;
  });
  // the epoch vouches for the host ids and the reserved ids (a server that lost the crawl's keys has another)
  const e = named || ids?.some((id) => id > 0) ? Buffer.from(epoch, 'latin1') : Buffer.alloc(0);
  if (e.length > 255) throw new Error(`not an epoch of the shared frontier: ${epoch}`);
  const b = Buffer.allocUnsafe(1 + e.length + total);
  let o = b.writeUInt8(e.length, 0);
  o += e.copy(b, o);
  adds.forEach((u, i) => {
    const r = rows[i];
    const state = u.state ?? UrlState.QUEUED;
    const priority = redisScore(u.priority);
    const id = ids?.[i] ?? 0;
    o = b.writeUInt32BE(r.hid, o);
    o += u.hash.copy(b, o, 0, 16);
    o += queueKey(priority).copy(b, o);
    o = b.writeUInt16BE(Math.floor(id / 2 ** 32), o);
    o = b.writeUInt32BE(id % 2 ** 32, o);
    o += u.hash.copy(b, o, 0, 16);
    o = b.writeDoubleBE(id, o);
    o = b.writeUInt8(state, o);
    o = b.writeUInt16BE(r.hostLen, o);
    o = b.writeUInt32BE(r.len, o);
    if (r.hostLen > 0) o += b.write(u.host, o, 'utf8');
    // the record (with no id: but its first field, the id): id, state, depth, life, priority, hops,
    // parentId (0 none), anchor (false none), inlinks, inlinkScore, url, scheme
    if (id > 0) o = mpNumber(b, b.writeUInt8(0x9c, o), id);
    o = mpNumber(b, o, state);
    o = mpNumber(b, o, u.depth);
    o = mpNumber(b, o, u.life);
    o = mpNumber(b, o, priority);
    o = mpNumber(b, o, u.hops ?? 0);
    o = mpNumber(b, o, u.parentId ?? 0);
    if (r.anchorLen >= 0) {
      o = mpStringAt(b, o, r.anchorLen);
      o += b.write(u.anchor!, o, 'utf8');
    } else o = b.writeUInt8(0xc2, o);
    o = mpNumber(b, o, u.inlinks ?? 0);
    o = mpNumber(b, o, u.inlinkScore ?? 0);
    o = mpStringAt(b, o, r.restLen);
    o += b.write(r.rest, o, 'utf8');
    o = mpNumber(b, o, r.scheme);
  });
  return { blob: b, byName };
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

/** One settle entry (layout in redis/leases.lua); `token`: in hex, or its 32 bytes. */
export function encodeSettle(token: string | Buffer, what: 0 | 1 | 2, counted: boolean, deferMs: number | null): Buffer {
  const b = Buffer.allocUnsafe(42);
  (typeof token === 'string' ? tokenBytes(token) : token).copy(b, 0, 0, 32);
  b.writeUInt8(what, 32);
  b.writeUInt8(counted ? 1 : 0, 33);
  b.writeDoubleBE(deferMs ?? -1, 34);
  return b;
}

/** A value of a record as Lua's cmsgpack writes it. */
export type RecordValue = number | string | boolean | null;

/**
 * Reads the MessagePack array Lua's cmsgpack writes for a URL's record (u:<hid> in
 * redis/common.lua), or the client for an add (encodeAdds): numbers (integers of every width,
 * float 32 and 64), strings, false, true and nil. Anything else is not a record of ours: an error.
 */
export function decodeRecord(b: Buffer, at = 0): RecordValue[] {
  let o = at;
  const head = b[o++];
  const n = (head & 0xf0) === 0x90 ? head & 0x0f : head === 0xdc ? b.readUInt16BE((o += 2) - 2) : -1;
  if (n < 0) throw new Error(`not a record of the shared frontier (MessagePack 0x${head?.toString(16)} at ${at})`);
  const out: RecordValue[] = new Array(n);
  // (strings: their length, then o moves past them below; no closure made per record)
  let len = -1;
  for (let i = 0; i < n; i++) {
    if (o >= b.length) throw new Error('not a record of the shared frontier (cut short)');
    const t = b[o++];
    let v: RecordValue = null;
    if (t < 0x80) v = t;
    else if (t >= 0xe0) v = t - 256;
    else if ((t & 0xe0) === 0xa0) len = t & 0x1f;
    else {
      switch (t) {
        case 0xc0: break; // (nil)
        case 0xc2: v = false; break;
        case 0xc3: v = true; break;
        case 0xcc: v = b[o]; o += 1; break;
        case 0xcd: v = b.readUInt16BE(o); o += 2; break;
        case 0xce: v = b.readUInt32BE(o); o += 4; break;
        case 0xcf: v = Number(b.readBigUInt64BE(o)); o += 8; break;
        case 0xd0: v = b.readInt8(o); o += 1; break;
        case 0xd1: v = b.readInt16BE(o); o += 2; break;
        case 0xd2: v = b.readInt32BE(o); o += 4; break;
        case 0xd3: v = Number(b.readBigInt64BE(o)); o += 8; break;
        case 0xca: v = b.readFloatBE(o); o += 4; break;
        case 0xcb: v = b.readDoubleBE(o); o += 8; break;
        case 0xd9: len = b[o]; o += 1; break;
        case 0xda: len = b.readUInt16BE(o); o += 2; break;
        case 0xdb: len = b.readUInt32BE(o); o += 4; break;
        default: throw new Error(`not a record of the shared frontier (MessagePack 0x${t?.toString(16)} at ${o - 1})`);
      }
    }
    if (len >= 0) {
      v = b.toString('utf8', o, (o += len));
      len = -1;
    }
    out[i] = v;
  }
  if (o > b.length) throw new Error('not a record of the shared frontier (cut short)');
  return out;
}

/**
 * A lease as the claim script returns it (layout in redis/claim.lua): the URL's record as stored
 * (decoded here rather than by the script: the client's core is the one with time to spare), its
 * URL made again from the host and the part after it. `hostName`: the host's name from its id and
 * its bytes in `b` (a cache may answer a name it decoded before).
 */
export function decodeLease(b: Buffer, hostName: (hostId: number, b: Buffer, start: number, end: number) => string = (_, x, start, end) => x.toString('utf8', start, end)): Lease {
  const hostId = b.readUInt32BE(0);
  const hostLen = b.readUInt16BE(40);
  const host = hostName(hostId, b, 42, 42 + hostLen);
  // id, state, depth, life, priority, hops, parentId (0 none), anchor (false none), inlinks, inlinkScore, url, scheme
  const r = decodeRecord(b, 42 + hostLen);
  const id = r[0] as number;
  const rest = r[10] as string;
  const url = r[11] === 1 ? `http://${host}${rest}` : r[11] === 2 ? `https://${host}${rest}` : rest;
  return {
    token: b.toString('hex', 0, 32), expiresAt: b.readDoubleBE(32), hostId, host, id, url,
    depth: r[2] as number, priority: r[4] as number, life: r[3] as number, seq: id, hops: r[5] as number,
    parentId: r[6] === 0 ? null : (r[6] as number), anchor: r[7] === false ? null : (r[7] as string),
  };
}

/** A number of a binary reply: integer replies are numbers, others Buffers of their decimal form. */
export function replyNumber(x: Buffer | number): number {
  return typeof x === 'number' ? x : Number(x.toString());
}

/** An optional number as a script argument ('' when absent). */
export function optionalArg(v: number | undefined): number | string {
  return v === undefined ? '' : v;
}
