import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';

/**
 * A DNS cache (seed 001): crawlers resolve the same hosts over and over, so answers of the system
 * resolver are kept for `ttlMs` (default 5 min; dns.lookup does not report TTLs), failures for
 * `negativeTtlMs` (default 30 s), at most `maxEntries` hosts. Concurrent lookups of one host share
 * one query. Pluggable into net/tls connect options as `lookup`.
 */
export interface DnsCacheOptions {
  ttlMs?: number;
  negativeTtlMs?: number;
  maxEntries?: number;
  now?: () => number;
  /** The resolver behind the cache (default dns.lookup with `all: true`). */
  resolve?: (hostname: string, cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

interface Entry {
  expires: number;
  err: NodeJS.ErrnoException | null;
  addresses: LookupAddress[];
}

export interface CachingLookup {
  (hostname: string, options: LookupOptions | number | LookupCallback, callback?: LookupCallback): void;
  /** Queries that reached the resolver (for tests and stats). */
  readonly misses: () => number;
}

export function createCachingLookup(opts: DnsCacheOptions = {}): CachingLookup {
  const ttl = opts.ttlMs ?? 5 * 60_000;
  const negTtl = opts.negativeTtlMs ?? 30_000;
  const max = opts.maxEntries ?? 10_000;
  const now = opts.now ?? Date.now;
  const resolve = opts.resolve ?? ((h, cb) => dnsLookup(h, { all: true }, cb));
  const cache = new Map<string, Entry>();
  const waiting = new Map<string, ((e: Entry) => void)[]>();
  let misses = 0;

  const answer = (e: Entry, options: LookupOptions, cb: LookupCallback) => {
    if (e.err) return cb(e.err, options.all ? [] : '', 0);
    const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
    const list = family ? e.addresses.filter((a) => a.family === family) : e.addresses;
    if (list.length === 0) {
      const err = Object.assign(new Error(`no IPv${family || ''} address`), { code: 'ENOTFOUND' }) as NodeJS.ErrnoException;
      return cb(err, options.all ? [] : '', 0);
    }
    if (options.all) cb(null, list);
    else cb(null, list[0].address, list[0].family);
  };

  const fn = (hostname: string, options: LookupOptions | number | LookupCallback, callback?: LookupCallback) => {
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    const o: LookupOptions = typeof options === 'object' ? options : typeof options === 'number' ? { family: options } : {};
    const key = hostname.toLowerCase();
    const hit = cache.get(key);
    if (hit && hit.expires > now()) return process.nextTick(() => answer(hit, o, cb));
    const queue = waiting.get(key);
    if (queue) return void queue.push((e) => answer(e, o, cb));
    waiting.set(key, [(e) => answer(e, o, cb)]);
    misses++;
    resolve(hostname, (err, addresses) => {
      const e: Entry = { err, addresses: addresses ?? [], expires: now() + (err ? negTtl : ttl) };
      if (cache.size >= max) cache.delete(cache.keys().next().value!);
      cache.set(key, e);
      const all = waiting.get(key) ?? [];
      waiting.delete(key);
      for (const w of all) w(e);
    });
  };
  return Object.assign(fn, { misses: () => misses });
}
