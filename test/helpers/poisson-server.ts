import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mulberry32 } from '../../src/eval/prng.js';

/**
 * A real HTTP server on 127.0.0.1:0 whose pages change as Poisson processes with known rates, on an
 * injected clock. Change times are drawn up front from a seeded PRNG (exponential gaps), so a test
 * knows the truth: the version a page has at any time, and its rate. Every response carries
 * boilerplate that changes on EVERY request (the request's date and time, a visitor counter), so
 * only a hash of the normalised text can tell a real change. Each version has its own ETag and
 * Last-Modified (the version's time); If-None-Match / If-Modified-Since get a 304.
 */

const DAY_MS = 86_400_000;

export interface PoissonPage {
  /** Path, e.g. "/p1". */
  path: string;
  /** True change rate in changes per day (0: never changes). */
  ratePerDay: number;
  /** From this time on (ms, clock time) the page answers `goneStatus` (default 404). */
  goneAt?: number;
  goneStatus?: 404 | 410;
  /** From this time on the page answers 500. */
  failFrom?: number;
  /** Send no ETag and no Last-Modified (so every revisit gets a 200 with fresh boilerplate). */
  noValidators?: boolean;
  /** Like a dynamic page: Last-Modified is the time of the request, no ETag, never a 304. */
  dynamicLastModified?: boolean;
  /** Versions ≥ 1 link to a new page /new/<name>-v<k> (served as a small static page). */
  newLinks?: boolean;
}

export interface PoissonServerOptions {
  pages: PoissonPage[];
  /** The clock the versions follow (ms since epoch). */
  clock: () => number;
  /** Version 0 of every page starts here. */
  start: number;
  /** Change times are drawn up to start + horizonMs. */
  horizonMs: number;
  seed?: number;
  /** The home page "/" links to every page (default true). */
  home?: boolean;
  /**
   * Serve /sitemap.xml listing every page with its <lastmod>: the time of its current version
   * ('version'), or of the request, as some generators do ('now'). Default: no sitemap (404).
   */
  sitemap?: 'version' | 'now';
}

export interface PoissonRequest {
  path: string;
  at: number;
  status: number;
  ifNoneMatch: string | null;
  ifModifiedSince: string | null;
}

export interface PoissonServer {
  port: number;
  /** Change times (ms) of a page, in order. */
  changeTimes(path: string): number[];
  /** The version a page has at time t (number of changes at or before t). */
  versionAt(path: string, t: number): number;
  /** Sets the robots.txt body (null: 404, allow all). */
  setRobots(text: string | null): void;
  requests: PoissonRequest[];
  close(): Promise<void>;
}

/** Letters for a version number: the marker must survive the fingerprint's digit masking. */
export function versionWord(k: number): string {
  let s = '';
  let n = k;
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return `rev${s}`;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** A boilerplate date line like "Wednesday, May 7, 2025 10:32:11 am". */
function dateLine(t: number): string {
  const d = new Date(t);
  const h = d.getUTCHours();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${WEEKDAYS[d.getUTCDay()]}, ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()} ${h % 12 || 12}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${h < 12 ? 'am' : 'pm'}`;
}

export async function startPoissonServer(opts: PoissonServerOptions): Promise<PoissonServer> {
  const rng = mulberry32(opts.seed ?? 1);
  const times = new Map<string, number[]>();
  const byPath = new Map<string, PoissonPage>();
  for (const p of opts.pages) {
    byPath.set(p.path, p);
    const ts: number[] = [];
    if (p.ratePerDay > 0) {
      let t = opts.start;
      for (;;) {
        t += (-Math.log(1 - rng.next()) / p.ratePerDay) * DAY_MS;
        if (t > opts.start + opts.horizonMs) break;
        ts.push(Math.round(t));
      }
    }
    times.set(p.path, ts);
  }
  const versionAt = (path: string, t: number): number => {
    const ts = times.get(path) ?? [];
    let n = 0;
    while (n < ts.length && ts[n] <= t) n++;
    return n;
  };
  let robots: string | null = null;
  let counter = 1000;
  const requests: PoissonRequest[] = [];

  const server = createServer((req, res) => {
    const now = opts.clock();
    const path = (req.url ?? '/').split('?')[0];
    const inm = (req.headers['if-none-match'] as string | undefined) ?? null;
    const ims = (req.headers['if-modified-since'] as string | undefined) ?? null;
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      requests.push({ path, at: now, status, ifNoneMatch: inm, ifModifiedSince: ims });
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
      res.end(status === 304 ? undefined : body);
    };
    const boiler = `<footer><p>Updated ${dateLine(now)}</p><p>Visitors: ${(counter += 7).toLocaleString('en-US')} · 3 minutes ago</p></footer>`;
    if (path === '/robots.txt') return robots === null ? send(404, 'no robots') : send(200, robots, { 'content-type': 'text/plain' });
    if (path === '/sitemap.xml' && opts.sitemap) {
      const host = req.headers.host ?? 'localhost';
      const urls = opts.pages.map((p) => {
        const k = versionAt(p.path, now);
        const t = opts.sitemap === 'now' ? now : k === 0 ? opts.start : times.get(p.path)![k - 1];
        return `<url><loc>http://${host}${p.path}</loc><lastmod>${new Date(t).toISOString()}</lastmod></url>`;
      });
      return send(200, `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>`, { 'content-type': 'application/xml' });
    }
    if (path.startsWith('/new/')) return send(200, `<html><head><title>New ${path}</title></head><body><p>a new page</p>${boiler}</body></html>`);
    if (path === '/' && opts.home !== false) {
      const links = opts.pages.map((p) => `<li><a href="${p.path}">page ${p.path}</a></li>`).join('');
      return send(200, `<html><head><title>Home</title></head><body><ul>${links}</ul>${boiler}</body></html>`);
    }
    const page = byPath.get(path);
    if (!page) return send(404, 'not found');
    if (page.goneAt !== undefined && now >= page.goneAt) return send(page.goneStatus ?? 404, 'gone');
    if (page.failFrom !== undefined && now >= page.failFrom) return send(500, 'server error');
    const k = versionAt(path, now);
    const versionTime = k === 0 ? opts.start : times.get(path)![k - 1];
    const etag = `"${path.slice(1).replace(/\W/g, '_')}-${k}"`;
    const lastModified = new Date(Math.floor(versionTime / 1000) * 1000).toUTCString();
    if (!page.noValidators && !page.dynamicLastModified) {
      if (inm !== null ? inm.split(',').some((e) => e.trim() === etag) : ims !== null && Date.parse(ims) >= Math.floor(versionTime / 1000) * 1000) {
        return send(304, '', { etag, 'last-modified': lastModified });
      }
    }
    const marker = versionWord(k);
    const extra = page.newLinks && k > 0 ? `<p><a href="/new/${path.slice(1)}-${marker}">new story ${marker}</a></p>` : '';
    const body =
      `<html><head><title>Page ${path}</title></head><body><h1>About ${path}</h1>` +
      `<p>The stable text of page ${path}: tobacco leaves, curing barns and the markets around them.</p>` +
      `<p>Current edition: ${marker} of this page.</p>${extra}<p><a href="/">home</a></p>${boiler}</body></html>`;
    const validators: Record<string, string> = page.noValidators ? {} : page.dynamicLastModified ? { 'last-modified': new Date(now).toUTCString() } : { etag, 'last-modified': lastModified };
    send(200, body, validators);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    changeTimes: (path) => [...(times.get(path) ?? [])],
    versionAt,
    setRobots: (text) => void (robots = text),
    requests,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
