/**
 * The pieces of scripts/bench-analysis-ab.ts that need no build: which pages it analyses, how it
 * tells two analyses' outputs apart, and the alternating rounds with their medians.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface AbPage {
  url: string;
  host: string;
  body: Uint8Array;
  contentType: string;
  html: true;
  anchors: string[];
}

/**
 * `n` HTML pages of a corpus (site/<host>/<path>) in the order a crawl of many hosts meets them:
 * hosts in turn (round-robin, in name order), each host's pages in path order. A crawl of 20,000
 * pages on 1,000 hosts comes back to a host every ~1,000 pages, and the analysis's memos (link
 * facts, text scores, the scanner's word table) are sized for that; the first n files in path order would
 * be a few hosts' pages, whose navigation every memo then holds.
 */
export function crawlOrderPages(corpus: string, n: number): AbPage[] {
  const site = join(corpus, 'site');
  const byHost = new Map<string, string[]>();
  for (const e of readdirSync(site, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[]) {
    if (!e.isFile() || !e.name.endsWith('.html')) continue;
    const file = join(e.parentPath ?? e.path, e.name);
    const host = relative(site, file).split('/')[0];
    const list = byHost.get(host) ?? [];
    list.push(file);
    byHost.set(host, list);
  }
  if (byHost.size === 0) throw new Error(`no .html page under ${site}`);
  const hosts = [...byHost.keys()].sort();
  for (const h of hosts) byHost.get(h)!.sort();
  const out: AbPage[] = [];
  for (let i = 0; out.length < n; i++) {
    let any = false;
    for (const h of hosts) {
      const file = byHost.get(h)![i];
      if (file === undefined) continue;
      any = true;
      const path = relative(join(site, h), file);
      out.push({ url: `http://${h}/${path}`, host: h, body: readFileSync(file), contentType: 'text/html; charset=utf-8', html: true, anchors: [] });
      if (out.length === n) break;
    }
    if (!any) break;
  }
  return out;
}

/** A digest of an analysis's output: its JSON, byte arrays as their SHA-1 (bodies, hashes). */
export function outputDigest(out: unknown): string {
  const json = JSON.stringify(out, (_k, v: unknown) =>
    v instanceof Uint8Array ? `bytes:${createHash('sha1').update(v).digest('hex')}` : v instanceof Map ? [...v] : v instanceof Set ? [...v] : v,
  );
  return createHash('sha1').update(json).digest('hex');
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export interface AbResult {
  /** µs of process CPU per page in each measured round */
  base: number[];
  next: number[];
  /** the first page whose outputs differ in the warm-up rounds; null: none */
  firstDifference: AbPage | null;
}

/**
 * Runs both analysers round after round, each round over its own pages (`rounds[r]`, the same for
 * both sides, so that each side meets every page once, in crawl order, as a crawl's memos do), the
 * order of the sides alternating (base first in even rounds); the first `warmup` rounds are not
 * measured (V8 optimises both meanwhile) and their outputs are compared page by page. Each page
 * gets its own copy of the body (an analysis may keep or transfer it).
 */
export function alternate(
  rounds: readonly (readonly AbPage[])[],
  base: (p: AbPage) => unknown,
  next: (p: AbPage) => unknown,
  warmup: number,
  cpuMicros: () => number = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  },
): AbResult {
  const r: AbResult = { base: [], next: [], firstDifference: null };
  for (let round = 0; round < rounds.length; round++) {
    const pages = rounds[round];
    const order: ['base' | 'next', (p: AbPage) => unknown][] = round % 2 === 0 ? [['base', base], ['next', next]] : [['next', next], ['base', base]];
    const digests: string[] = [];
    for (const [side, fn] of order) {
      const t0 = cpuMicros();
      for (let i = 0; i < pages.length; i++) {
        const out = fn({ ...pages[i], body: Uint8Array.from(pages[i].body) });
        if (round < warmup) {
          const d = outputDigest(out);
          if (side === order[0][0]) digests[i] = d;
          else if (digests[i] !== d) r.firstDifference ??= pages[i];
        }
      }
      const us = (cpuMicros() - t0) / pages.length;
      if (round >= warmup) r[side].push(us);
    }
  }
  return r;
}
