/**
 * Strategy benchmark (issue 4): what each ordering strategy costs per fetched page, at several
 * numbers of known URLs, against the crawl's own CPU per page.
 *
 *   npx tsx scripts/bench-strategies.ts [--sizes 10000,100000,1000000] [--pages 2000] [--links 40]
 *                                       [--new-share 0.3] [--recompute-sizes 100000,1000000] [--strategies a,b]
 *
 * For every strategy of the registry (STRATEGIES, so strategies added later are included):
 * 1. preload (not timed): a synthetic web is grown through the strategy's own hooks, the way link
 *    intake drives them, until `size` URLs are known: seeds (seed + onSeeded), then pages fetched
 *    in id order (the first queued id), each with `--links` out-links that are all new (so the
 *    preload takes size/links pages). Recomputing strategies (partial-pagerank reads
 *    pagerank_every at every page) recompute once, at the end of the preload, not every K pages.
 * 2. timed: `--pages` more pages, each with `--links` out-links, a share `--new-share` of them new
 *    and the rest known URLs picked at random (queued, pruned or fetched, `known` filled in as
 *    the frontier would: state, priority, life, inlink counters). Per page: onPageFetched →
 *    decisions applied to the simulated frontier → onLinksStored with the ids → takeUpdates →
 *    updates applied. Only the three hook calls are timed (building LinkInfo objects and applying
 *    decisions are link intake's and the frontier's work). Recomputes that fall in the timed pages
 *    (partial-pagerank: every K = pagerank_every pages) are included, so the figure is the
 *    recompute spread over its K pages.
 * 3. the PageRank engine alone at `--recompute-sizes` nodes, every node a fetched page with 10
 *    out-links (skewed targets): build, a run from scratch, and a warm run after K more pages.
 *
 * Prints one JSON object. The crawl's CPU per page (~3 ms) comes from scripts/bench-crawl.ts
 * (cpu_ms_per_page of an end-to-end crawl of the synthetic corpus); each strategy's cost is given
 * as a share of it at 100,000 known URLs (or the size closest to it).
 */
import { parseArgs } from 'node:util';
import type { KnownUrl } from '../src/frontier/frontier.js';
import type { UrlState } from '../src/frontier/url-state.js';
import { PageRankGraph } from '../src/strategy/pagerank-graph.js';
import { STRATEGIES } from '../src/strategy/registry.js';
import { inlinkContribution, type LinkInfo, type PageInfo, type Strategy, type StrategyConfig } from '../src/strategy/strategy.js';
import { TopicSchema } from '../src/topic/topic-schema.js';

/** cpu_ms_per_page of scripts/bench-crawl.ts (end-to-end crawl, synthetic corpus), for reference. */
const CRAWL_CPU_MS_PER_PAGE = 3;
const REFERENCE_SIZE = 100_000;
const HOSTS = 2000;
const SEEDS = 10;
const QUEUED = 0;
const FETCHED = 2;
const PRUNED = 4;

const { values: a } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000,1000000' },
    pages: { type: 'string', default: '2000' },
    links: { type: 'string', default: '40' },
    'new-share': { type: 'string', default: '0.3' },
    'recompute-sizes': { type: 'string', default: '100000,1000000' },
    strategies: { type: 'string' },
  },
});
const sizes = a.sizes!.split(',').map(Number);
const pages = Number(a.pages);
const linksPerPage = Number(a.links);
const newShare = Number(a['new-share']);
const names = a.strategies ? a.strategies.split(',') : Object.keys(STRATEGIES);

function baseConfig(): StrategyConfig {
  const t = TopicSchema.parse({ name: 'bench', seeds: ['http://h0.bench.test/'], keywords: { tobacco: 1 } });
  return { ...t.strategy, location: { tokens: { tobacco: 1, news: 0.5, travel: -1 }, tld: { com: 0.2 }, segment_penalty: 0.1 } };
}

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hostOf = (id: number) => (Math.imul(id, 2654435761) >>> 0) % HOSTS;
const urlOf = (id: number) => `http://h${hostOf(id)}.bench${hostOf(id) % 3 ? '' : '-tobacco'}.test/p/${id % 7 ? 'news' : 'x'}/${id}.html`;

/** The frontier's view of every known URL, in typed arrays by id, as link intake keeps it. */
class SimFrontier {
  state: Uint8Array;
  depth: Int32Array;
  life: Int32Array;
  inlinks: Int32Array;
  priority: Float64Array;
  inlinkScore: Float64Array;
  nextId = 1;
  cursor = 1;
  constructor(cap: number) {
    this.state = new Uint8Array(cap);
    this.depth = new Int32Array(cap);
    this.life = new Int32Array(cap);
    this.inlinks = new Int32Array(cap);
    this.priority = new Float64Array(cap);
    this.inlinkScore = new Float64Array(cap);
  }
  known(id: number): KnownUrl {
    return { id, hostId: hostOf(id) + 1, state: this.state[id] as UrlState, depth: this.depth[id], priority: this.priority[id], life: this.life[id], inlinks: this.inlinks[id], inlinkScore: this.inlinkScore[id] };
  }
  /** The next URL to fetch: the first queued id (a stand-in for the scheduler). */
  take(): number {
    while (this.cursor < this.nextId && this.state[this.cursor] !== QUEUED) this.cursor++;
    return this.cursor < this.nextId ? this.cursor : 0;
  }
}

/**
 * One page through the hooks; returns the µs spent in the strategy, of which `updatesUs` in
 * takeUpdates (re-ranking: the priorities a strategy changes after a page), and the number of
 * updates it returned.
 */
function visit(s: Strategy, f: SimFrontier, rnd: () => number, nLinks: number, share: number): { us: number; updatesUs: number; updates: number } {
  const id = f.take();
  if (!id) throw new Error('nothing queued');
  const relevance = rnd();
  const page: PageInfo = { id, url: urlOf(id), depth: f.depth[id], life: f.life[id], priority: f.priority[id], relevance, relevant: relevance >= 0.5 };
  const contribution = inlinkContribution(relevance);
  const depth = page.depth + 1;
  const infos: LinkInfo[] = [];
  const ids: number[] = [];
  const seen = new Set<number>();
  let fresh = f.nextId;
  for (let i = 0; i < nLinks; i++) {
    const isNew = rnd() < share || f.nextId <= SEEDS + 1;
    const t = isNew ? fresh++ : 1 + Math.floor(rnd() * (f.nextId - 1));
    if (seen.has(t)) continue;
    seen.add(t);
    ids.push(t);
    const k = isNew ? null : f.known(t);
    infos.push({
      url: urlOf(t), host: `h${hostOf(t)}.bench.test`, depth: k ? Math.min(k.depth, depth) : depth, anchor: i % 3 ? 'tobacco news' : 'more',
      known: k, inlinks: (k?.inlinks ?? 0) + 1, inlinkScore: (k?.inlinkScore ?? 0) + contribution, anchorScore: rnd() < 0.2 ? rnd() : 0, contextScore: rnd() * 0.5,
    });
  }
  const t0 = process.hrtime.bigint();
  const decisions = s.onPageFetched(page, infos);
  const t1 = process.hrtime.bigint();
  infos.forEach((info, j) => {
    const t = ids[j];
    const dec = decisions[j];
    if (!info.known) {
      const d = dec ?? { priority: 0, life: 0, prune: true as const };
      f.state[t] = d.prune ? PRUNED : QUEUED;
      f.priority[t] = d.priority;
      f.life[t] = d.life;
      f.depth[t] = depth;
      f.inlinks[t] = 1;
      f.inlinkScore[t] = info.inlinkScore;
      return;
    }
    if (info.known.state !== QUEUED && info.known.state !== PRUNED) return;
    f.inlinks[t] = info.inlinks;
    f.inlinkScore[t] = info.inlinkScore;
    if (dec && !dec.prune) {
      f.priority[t] = dec.priority;
      f.life[t] = dec.life;
      f.state[t] = QUEUED;
    }
  });
  f.nextId = fresh;
  const t2 = process.hrtime.bigint();
  s.onLinksStored?.(page, infos, ids);
  f.state[id] = FETCHED;
  const t3 = process.hrtime.bigint();
  const updates = s.takeUpdates?.() ?? [];
  const t4 = process.hrtime.bigint();
  for (const u of updates) if (f.state[u.id] === QUEUED) f.priority[u.id] = u.priority;
  return { us: Number(t1 - t0 + (t3 - t2) + (t4 - t3)) / 1000, updatesUs: Number(t4 - t3) / 1000, updates: updates.length };
}

interface SizeFigures {
  known_urls: number;
  preload_pages: number;
  preload_s: number;
  us_per_page: number;
  us_per_page_median: number;
  us_per_page_p99: number;
  us_per_page_max: number;
  /** priority updates per page returned by takeUpdates (rows the frontier rewrites) */
  updates_per_page: number;
  /** µs per page spent in takeUpdates (re-ranking), part of us_per_page */
  takeupdates_us_per_page?: number;
  recomputes?: number;
  recompute_ms_mean?: number;
  error?: string;
}

function benchStrategy(name: string, size: number): SizeFigures {
  const cfg = baseConfig();
  const K = cfg.pagerank_every;
  const preloadPages = Math.ceil(Math.max(0, size - SEEDS) / linksPerPage);
  cfg.pagerank_every = Math.max(1, preloadPages); // one recompute at the end of the preload
  const s = STRATEGIES[name].create(cfg);
  const f = new SimFrontier(size + SEEDS + (pages + 1) * linksPerPage + 1);
  const rnd = prng(42);
  const t0 = performance.now();
  for (let i = 0; i < SEEDS; i++) {
    const id = f.nextId++;
    const d = s.seed(urlOf(id));
    f.priority[id] = d.priority;
    f.life[id] = d.life;
    s.onSeeded?.(id, urlOf(id));
  }
  for (let p = 0; f.nextId - 1 < size; p++) visit(s, f, rnd, linksPerPage, 1);
  const preloadS = (performance.now() - t0) / 1000;
  cfg.pagerank_every = K;
  const knownAtStart = f.nextId - 1;
  const lastRun = (s as { lastRun?: () => { atPage: number; ms: number } | null }).lastRun;
  const runMs: number[] = [];
  let lastAt = lastRun?.()?.atPage ?? -1;
  const us: number[] = [];
  let updates = 0;
  let updatesUs = 0;
  for (let p = 0; p < pages; p++) {
    const v = visit(s, f, rnd, linksPerPage, newShare);
    us.push(v.us);
    updates += v.updates;
    updatesUs += v.updatesUs;
    const r = lastRun?.();
    if (r && r.atPage !== lastAt) (lastAt = r.atPage), runMs.push(r.ms);
  }
  us.sort((x, y) => x - y);
  const out: SizeFigures = {
    known_urls: knownAtStart,
    preload_pages: preloadPages,
    preload_s: round(preloadS, 2),
    us_per_page: round(us.reduce((x, y) => x + y, 0) / us.length, 1),
    us_per_page_median: round(us[us.length >> 1], 1),
    us_per_page_p99: round(us[Math.floor(us.length * 0.99)], 1),
    us_per_page_max: round(us[us.length - 1], 1),
    updates_per_page: round(updates / pages, 1),
    takeupdates_us_per_page: round(updatesUs / pages, 1),
  };
  if (lastRun) {
    out.recomputes = runMs.length;
    out.recompute_ms_mean = runMs.length ? round(runMs.reduce((x, y) => x + y, 0) / runMs.length, 1) : 0;
  }
  return out;
}

function benchEngine(n: number, K: number, damping: number) {
  const rnd = prng(7);
  const g = new PageRankGraph();
  const out = new Int32Array(10);
  const fill = () => {
    for (let k = 0; k < 10; k++) out[k] = 1 + Math.floor(rnd() * rnd() * n);
  };
  let t = performance.now();
  for (let i = 1; i <= n; i++) fill(), g.addEdges(i, out);
  const buildMs = performance.now() - t;
  t = performance.now();
  const cold = g.compute({ damping });
  const coldMs = performance.now() - t;
  for (let i = 0; i < K; i++) fill(), g.addEdges(n + 1 + i, out);
  t = performance.now();
  const warm = g.compute({ damping });
  const warmMs = performance.now() - t;
  return {
    nodes: g.nodeCount, edges: g.edgeCount, build_ms: round(buildMs, 0),
    cold: { ms: round(coldMs, 1), iterations: cold.iterations, converged: cold.converged },
    warm_after_K_pages: { K, ms: round(warmMs, 1), iterations: warm.iterations, converged: warm.converged },
  };
}

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

const start = performance.now();
const cfg0 = baseConfig();
const result: Record<string, unknown> = {
  command: `npx tsx scripts/bench-strategies.ts ${process.argv.slice(2).join(' ')}`.trim(),
  node: process.version,
  pages_timed: pages,
  links_per_page: linksPerPage,
  new_share: newShare,
  pagerank_every: cfg0.pagerank_every,
  damping: cfg0.damping,
  crawl_cpu_ms_per_page: CRAWL_CPU_MS_PER_PAGE,
  crawl_cpu_source: 'scripts/bench-crawl.ts (cpu_ms_per_page, end-to-end crawl of the synthetic corpus)',
};
const strategies: Record<string, unknown> = {};
const refSize = sizes.reduce((best, s) => (Math.abs(s - REFERENCE_SIZE) < Math.abs(best - REFERENCE_SIZE) ? s : best), sizes[0]);
for (const name of names) {
  const bySize: Record<string, SizeFigures> = {};
  for (const size of sizes) {
    try {
      bySize[size] = benchStrategy(name, size);
    } catch (err) {
      bySize[size] = { known_urls: size, preload_pages: 0, preload_s: 0, us_per_page: NaN, us_per_page_median: NaN, us_per_page_p99: NaN, us_per_page_max: NaN, updates_per_page: NaN, error: String(err) };
    }
    process.stderr.write(`${name} @ ${size}: ${bySize[size].us_per_page} µs/page\n`);
  }
  const ref = bySize[refSize];
  strategies[name] = { by_known_urls: bySize, [`pct_of_crawl_cpu_at_${refSize}`]: round((ref.us_per_page / 1000 / CRAWL_CPU_MS_PER_PAGE) * 100, 2) };
}
result.strategies = strategies;
result.pagerank_engine = a['recompute-sizes']!
  .split(',')
  .map(Number)
  .map((n) => benchEngine(n, cfg0.pagerank_every, cfg0.damping));
result.total_s = round((performance.now() - start) / 1000, 1);
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
