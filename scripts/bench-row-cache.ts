/**
 * The frontier's row cache (src/frontier/url-row-cache.ts) of a base commit against this
 * checkout's, in one process (run with `node --expose-gc`, which `npx tsx --expose-gc` passes on):
 *
 * - work: the calls a crawl makes of it, in its proportions at 20,000 pages of /tmp/synth100k
 *   (per page: 5 new URLs put, 35 known ones looked up, most of them a site's navigation met
 *   again, 30 changes applied, one URL forgotten when its outcome is written), the sides taking
 *   turns of `--turn` pages, µs a page;
 * - a full garbage collection with each cache full (`global.gc()`, the other side's cache dropped
 *   first), ms: the crawl's thread makes a full collection every 600–700 pages at 20,000 pages, and
 *   marks everything the cache holds each time.
 *
 * Both sides get the same calls and must give the same answers (checked on every lookup).
 *
 *   npx tsx --expose-gc scripts/bench-row-cache.ts --base <commit> [--pages 40000] [--turn 500] [--gcs 5]
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { CachedRow, UrlRowCache } from '../src/frontier/url-row-cache.js';
import { addBaseWorktree, baseTreeFolder, resolveBase } from './bench-worktree.js';

const { values: a } = parseArgs({
  options: {
    base: { type: 'string' }, pages: { type: 'string', default: '40000' }, turn: { type: 'string', default: '500' }, gcs: { type: 'string', default: '5' },
  },
});
const fail = (m: string): never => {
  console.error(`bench-row-cache: ${m}`);
  process.exit(2);
};
if (!a.base) fail('usage: npx tsx --expose-gc scripts/bench-row-cache.ts --base <commit> [--pages 40000] [--turn 500] [--gcs 5]');
const pages = Number(a.pages);
const turn = Number(a.turn);
const gcs = Number(a.gcs);
for (const [k, v] of Object.entries({ pages, turn, gcs })) if (!Number.isInteger(v) || v < 1) fail(`--${k} must be a positive integer`);
const gc = (globalThis as { gc?: () => void }).gc ?? fail('run with --expose-gc (npx tsx --expose-gc scripts/bench-row-cache.ts …)');

type Cache = Pick<UrlRowCache, 'get' | 'put' | 'apply' | 'setPriority' | 'forget' | 'queueKey' | 'size'>;
type CacheClass = new (max?: number) => Cache;

/** One page of a crawl's calls, the same for both sides (a seeded generator each). */
function* crawlCalls(seed: number): Generator<(c: Cache) => unknown> {
  let s = seed;
  const rnd = () => (s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff;
  let nextId = 1;
  const hex = (id: number) => (id * 2654435761).toString(16).padStart(32, '0').slice(-32);
  for (;;) {
    const calls: ((c: Cache) => unknown)[] = [];
    for (let i = 0; i < 5; i++) {
      const id = nextId++;
      const row: CachedRow = { hashHex: hex(id), id, hostId: id % 1000, state: 0, depth: 2, priority: rnd(), life: 3, inlinks: 1, inlinkScore: 0.1, seq: id };
      calls.push((c) => c.put({ ...row }));
    }
    for (let i = 0; i < 35; i++) {
      // a site's navigation: mostly URLs met lately, some older
      const back = rnd() < 0.8 ? Math.floor(rnd() * 2000) : Math.floor(rnd() * nextId);
      const id = Math.max(1, nextId - 1 - back);
      calls.push((c) => c.get(id)?.priority ?? null);
      if (i < 30) {
        const p = rnd();
        calls.push((c) => c.apply({ id, hostId: id % 1000, inlinks: 2 + i, inlinkScore: 0.2, priority: p }));
      }
    }
    const done = Math.max(1, nextId - 1 - Math.floor(rnd() * 5000));
    calls.push((c) => c.forget(done));
    calls.push((c) => c.queueKey(Math.max(1, nextId - 7))?.seq ?? null);
    yield (c) => calls.map((f) => f(c));
  }
}

const { root, baseSha, headSha, dirty } = resolveBase(a.base!);
const tree = addBaseWorktree(root, baseSha, baseTreeFolder('bench-row-cache'));
try {
  const load = async (dir: string) => ((await import(pathToFileURL(join(dir, 'src/frontier/url-row-cache.ts')).href)) as { UrlRowCache: CacheClass }).UrlRowCache;
  const sides = { base: await load(tree.tree), new: await load(root) };
  // work, in turns
  const caches = { base: new sides.base(), new: new sides.new() };
  const gens = { base: crawlCalls(1), new: crawlCalls(1) };
  const ns = { base: 0, new: 0 };
  for (let done = 0, t = 0; done < pages; done += turn, t++) {
    const order: ('base' | 'new')[] = t % 2 === 0 ? ['base', 'new'] : ['new', 'base'];
    const answers: Record<string, unknown[]> = {};
    for (const side of order) {
      const g = gens[side];
      const c = caches[side];
      const out: unknown[] = [];
      const t0 = process.hrtime.bigint();
      for (let p = 0; p < turn; p++) out.push(g.next().value!(c));
      ns[side] += Number(process.hrtime.bigint() - t0);
      answers[side] = out;
    }
    if (JSON.stringify(answers.base) !== JSON.stringify(answers.new)) throw new Error(`the two caches answered differently in turn ${t}`);
  }
  const sizes = { base: caches.base.size, new: caches.new.size };
  if (sizes.base !== sizes.new) throw new Error(`the caches hold ${sizes.base} and ${sizes.new} rows`);
  // a full collection with one side's cache full (the other dropped), alternating
  const gcMs = { base: [] as number[], new: [] as number[] };
  const kept: Partial<Record<'base' | 'new', Cache>> = {};
  for (let r = 0; r < gcs * 2; r++) {
    const side = r % 2 === 0 ? 'base' : 'new';
    delete kept.base;
    delete kept.new;
    const c = new sides[side]();
    const g = crawlCalls(2);
    for (let p = 0; p < 40_000; p++) g.next().value!(c);
    kept[side] = c;
    gc();
    const t0 = process.hrtime.bigint();
    gc();
    gcMs[side].push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  console.log(JSON.stringify({
    command: `npx tsx --expose-gc scripts/bench-row-cache.ts --base ${a.base} --pages ${pages} --turn ${turn} --gcs ${gcs}`,
    base: `${baseSha.slice(0, 10)} (${a.base})`,
    new: `${headSha.slice(0, 10)}${dirty ? ' + uncommitted changes' : ''} (working tree)`,
    rows_held: sizes.new,
    same_answers: true,
    base_us_per_page: +(ns.base / 1000 / pages).toFixed(2),
    new_us_per_page: +(ns.new / 1000 / pages).toFixed(2),
    new_to_base: +(ns.new / ns.base).toFixed(3),
    base_full_gc_ms: +median(gcMs.base).toFixed(2),
    new_full_gc_ms: +median(gcMs.new).toFixed(2),
    full_gc_new_to_base: +(median(gcMs.new) / median(gcMs.base)).toFixed(3),
    full_gc_rounds_ms: { base: gcMs.base.map((x) => +x.toFixed(2)), new: gcMs.new.map((x) => +x.toFixed(2)) },
  }, null, 2));
} finally {
  tree.remove();
}
