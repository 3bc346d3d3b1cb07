import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Crawler } from '../../src/crawl/crawler.js';
import { startCorpusServer } from '../../src/eval/corpus-server.js';
import type { KnownUrl } from '../../src/frontier/frontier.js';
import { exportRows } from '../../src/store/crawl-report.js';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { createNutchOpic, type NutchOpicStrategy } from '../../src/strategy/nutch-opic.js';
import { createOpic, type OpicStrategy } from '../../src/strategy/opic.js';
import { createStrategy } from '../../src/strategy/registry.js';
import type { HistoryPage, LinkInfo, PageInfo, Strategy } from '../../src/strategy/strategy.js';
import { buildConfig } from '../../src/topic/config.js';
import { UrlState } from '../../src/frontier/url-state.js';
import { strategyConfig } from '../helpers/strategy-config.js';
import { tmpDir } from '../helpers/tmp.js';

const cfg = strategyConfig({ max_life: 3 });
const { QUEUED, IN_FLIGHT, FETCHED } = UrlState;

/**
 * A tiny stand-in for the frontier and link intake: nodes of a graph become URLs with ids in
 * discovery order, and a fetched node's outlinks go through the strategy's hooks exactly as
 * src/crawl/link-intake.ts calls them (onPageFetched, decisions applied to new and queued URLs,
 * onLinksStored with every link's id, then takeUpdates).
 */
class Sim {
  readonly idOf = new Map<number, number>();
  readonly state = new Map<number, UrlState>(); // by id
  readonly priority = new Map<number, number>(); // by id, as the frontier holds it
  readonly seeds: { id: number; url: string }[] = [];
  readonly history: HistoryPage[] = [];
  private nextId = 1;

  constructor(readonly s: Strategy) {}

  url = (node: number) => `http://g.test/${node}`;

  private add(node: number, priority: number): number {
    const id = this.nextId++;
    this.idOf.set(node, id);
    this.state.set(id, QUEUED);
    this.priority.set(id, priority);
    return id;
  }

  seed(node: number): void {
    if (this.idOf.has(node)) return;
    const d = this.s.seed(this.url(node));
    const id = this.add(node, d.priority);
    this.s.onSeeded?.(id, this.url(node));
    this.seeds.push({ id, url: this.url(node) });
  }

  queued(): number[] {
    return [...this.state].filter(([, st]) => st === QUEUED).map(([id]) => id);
  }

  fetch(id: number, outNodes: number[]): void {
    this.state.set(id, IN_FLIGHT);
    const page: PageInfo = { id, url: `#${id}`, depth: 0, life: 3, priority: this.priority.get(id)!, relevance: null, relevant: false };
    const infos: LinkInfo[] = outNodes.map((n) => {
      const kid = this.idOf.get(n);
      const known: KnownUrl | null =
        kid === undefined ? null : { id: kid, hostId: 1, state: this.state.get(kid)!, depth: 1, priority: this.priority.get(kid)!, life: 3, inlinks: 0, inlinkScore: 0 };
      return { url: this.url(n), host: 'g.test', depth: 1, anchor: '', known, inlinks: 1, inlinkScore: 0.5 };
    });
    const decisions = this.s.onPageFetched(page, infos);
    const ids = infos.map((info, j) => {
      const dec = decisions[j];
      if (!info.known) return this.add(outNodes[j], dec!.priority);
      if (dec && this.state.get(info.known.id) === QUEUED) this.priority.set(info.known.id, dec.priority);
      return info.known.id;
    });
    this.s.onLinksStored?.(page, infos, ids);
    for (const u of this.s.takeUpdates?.() ?? []) if (this.state.get(u.id) === QUEUED) this.priority.set(u.id, u.priority);
    this.state.set(id, FETCHED);
    this.history.push({ page, outlinks: ids });
  }

  resumeInto(fresh: Strategy): void {
    fresh.resume!({ maxPriority: Math.max(...this.priority.values()), seeds: () => this.seeds, history: () => this.history, queued: () => [] });
  }
}

/** A random small graph, its seeds and a random fetch order (indices into the queue at each step). */
const graphRun = fc
  .integer({ min: 1, max: 12 })
  .chain((n) =>
    fc.record({
      n: fc.constant(n),
      links: fc.array(fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: 5 }), { minLength: n, maxLength: n }),
      seeds: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 1, maxLength: 3 }),
      picks: fc.array(fc.nat(), { minLength: n, maxLength: n }),
    }),
  );
type GraphRun = { n: number; links: number[][]; seeds: number[]; picks: number[] };

/** Runs a graph through a strategy, calling `check` after the seeds and after every page. */
function drive(s: Strategy, g: GraphRun, check: (sim: Sim) => void = () => {}): Sim {
  const sim = new Sim(s);
  for (const node of g.seeds) sim.seed(node);
  check(sim);
  const nodeOf = (id: number) => [...sim.idOf].find(([, i]) => i === id)![0];
  for (const pick of g.picks) {
    const q = sim.queued();
    if (q.length === 0) break;
    const id = q[pick % q.length];
    sim.fetch(id, g.links[nodeOf(id)]);
    check(sim);
  }
  return sim;
}

const figures = (s: Strategy, sim: Sim) => [...sim.idOf.values()].map((id) => s.explain!(id));

describe('nutch-opic', () => {
  it('gives seeds the injected score, shares the whole score with every child and keeps it', () => {
    const s = createNutchOpic(cfg);
    const sim = new Sim(s);
    sim.seed(0);
    expect(sim.priority.get(1)).toBe(1);
    sim.fetch(1, [0, 1, 2]); // a self-link, two new pages (ids 2, 3)
    expect(s.score(1)).toBeCloseTo(1 + 1 / 3, 12); // kept, plus its own share
    expect(sim.priority.get(2)).toBeCloseTo(1 / 3, 12);
    sim.fetch(2, [0, 2]); // a fetched page accumulates too
    expect(s.score(1)).toBeCloseTo(1 + 1 / 3 + 1 / 6, 12);
    expect(s.score(3)).toBeCloseTo(1 / 3 + 1 / 6, 12);
    expect(sim.priority.get(3)).toBeCloseTo(1 / 2, 12);
    sim.fetch(3, []); // no root: a dead end keeps its score
    expect(s.explain(3)).toEqual({ score: s.score(3) });
    expect(s.explain(99)).toBeNull();
  });

  it('the frontier priority of every queued URL is its score after every step (property)', () => {
    fc.assert(
      fc.property(graphRun, (g) => {
        const s = createNutchOpic(cfg);
        drive(s, g, (sim) => {
          for (const id of sim.queued()) expect(sim.priority.get(id)!).toBeCloseTo(s.score(id)!, 12);
        });
      }),
    );
  });
});

describe('opic', () => {
  it('moves cash to history, shares it among outlinks, and sends dead ends to the root', () => {
    const s = createOpic(cfg);
    const sim = new Sim(s);
    sim.seed(0); // id 1
    sim.seed(1); // id 2
    sim.fetch(1, [1, 2]); // B known, C new (id 3)
    expect(s.explain(1)).toMatchObject({ cash: 0, history: 1, G: 1, state: 'fetched' });
    expect([s.cash(2), s.cash(3)]).toEqual([1.5, 0.5]);
    expect([sim.priority.get(2), sim.priority.get(3)]).toEqual([1.5, 0.5]);
    sim.fetch(3, []); // dead end: 0.5 to the root, paid at once to the only open page (B)
    expect(s.root()).toEqual({ cash: 0, history: 0.5, g: 2, omega: 0.5 });
    expect(s.cash(2)).toBe(2);
    expect(s.explain(2)).toMatchObject({ cash: 2, priority: 1.5 }); // cash − Ω: the frontier was not touched
    expect(s.explain(3)!.importance).toBeCloseTo(0.5 / 3, 12);
    sim.fetch(2, [0, 1, 3]); // A (fetched), B itself, D new: 2/3 each
    expect(s.cash(1)).toBeCloseTo(2 / 3, 12);
    expect(s.cash(2)).toBeCloseTo(2 / 3, 12);
    expect(s.cash(4)).toBeCloseTo(2 / 3, 12);
    expect(sim.priority.get(4)).toBeCloseTo(2 / 3 - 0.5, 12);
    expect(s.totalCash()).toBeCloseTo(2, 12);
    expect(s.explain(99)).toBeNull();
  });

  it('keeps the root cash while no page is open and pays it to the next seed', () => {
    const s = createOpic(cfg);
    const sim = new Sim(s);
    sim.seed(0);
    sim.fetch(1, []);
    expect(s.root().cash).toBe(1);
    sim.seed(1);
    expect(s.root().cash).toBe(0);
    expect(s.cash(2)).toBe(2);
    expect(s.totalCash()).toBe(2);
  });

  it('conserves total cash, the root included, after every step on random graphs (property)', () => {
    fc.assert(
      fc.property(graphRun, (g) => {
        const s = createOpic(cfg);
        const total = g.seeds.length;
        drive(s, g, (sim) => {
          expect(Math.abs(s.totalCash() - total)).toBeLessThanOrEqual(1e-9 * total);
          // the frontier orders queued URLs by cash: priority − cash is the same (−Ω) for all of them
          for (const id of sim.queued()) expect(sim.priority.get(id)! - s.cash(id)!).toBeCloseTo(-s.root().omega, 9);
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('resume', () => {
  for (const [name, make] of [['opic', () => createOpic(cfg)], ['nutch-opic', () => createNutchOpic(cfg)]] as const) {
    it(`${name}: replaying the seeds and the history gives the live figures, and the crawl goes on the same (property)`, () => {
      fc.assert(
        fc.property(graphRun, fc.nat(), (g, cut) => {
          const live = make() as Strategy;
          const sim = drive(live, g);
          const resumed = make() as Strategy;
          sim.resumeInto(resumed);
          expect(figures(resumed, sim)).toEqual(figures(live, sim));
          // one more page on both: the same decisions
          const q = sim.queued();
          if (q.length === 0) return;
          const id = q[cut % q.length];
          const page: PageInfo = { id, url: '#', depth: 0, life: 3, priority: 0, relevance: null, relevant: false };
          const infos: LinkInfo[] = [{ url: 'http://g.test/new', host: 'g.test', depth: 1, anchor: '', known: null, inlinks: 1, inlinkScore: 0.5 }];
          expect(resumed.onPageFetched(page, infos)).toEqual(live.onPageFetched(page, infos));
        }),
      );
    });
  }
});

/** One host, a binary tree of 31 pages with back links every third page; depth-3 pages' links to new pages are too deep. */
function treeLinks(i: number): number[] {
  const outs = [2 * i + 1, 2 * i + 2].filter((c) => c < 31 && i % 5 !== 4); // every fifth page is a dead end
  if (i % 3 === 0 && i > 0) outs.push(Math.floor(i / 3));
  return outs;
}

/** Pages a crawl limited to depth `max` reaches from page 0 (breadth-first depths). */
function reachable(max: number): number {
  const depth = new Map([[0, 0]]);
  for (const [p, d] of depth) if (d < max) for (const c of treeLinks(p)) if (!depth.has(c)) depth.set(c, d + 1);
  return depth.size;
}

function writeTreeCorpus(dir: string): string {
  const host = 'tree.test';
  mkdirSync(join(dir, 'site', host), { recursive: true });
  for (let i = 0; i < 31; i++) {
    const links = treeLinks(i).map((o) => `<a href="/p${o}.html">p${o}</a>`).join(' ');
    writeFileSync(join(dir, 'site', host, `p${i}.html`), `<!doctype html><html><head><title>p${i}</title></head><body><p>tree ${links}</p></body></html>`);
  }
  writeFileSync(join(dir, 'corpus.json'), JSON.stringify({ name: 'tree', description: 'tree', license: 'CC0-1.0', seeds: [`http://${host}/p0.html`], labels: {} }));
  writeFileSync(join(dir, 'labels.tsv'), 'url\tlabels\n');
  return `http://${host}/p0.html`;
}

describe('opic through the real crawl loop', () => {
  it('hands out the URL with the most cash each time, at the priority the strategy set, and conserves cash', async () => {
    const dir = tmpDir();
    const seed = writeTreeCorpus(join(dir, 'corpus'));
    const dbPath = join(dir, 'crawl.db');
    const server = await startCorpusServer(join(dir, 'corpus'));
    type Fig = { cash: number; priority?: number; state: string; root_history: number };
    const snaps: Map<number, Fig>[] = [];
    const totals: number[] = [];
    const snapshot = (s: Strategy) => {
      const m = new Map<number, Fig>();
      for (let id = 1, e; id <= 64; id++) if ((e = s.explain!(id))) m.set(id, e as unknown as Fig);
      snaps.push(m);
    };
    try {
      const config = buildConfig({
        name: 'opic-tree', seeds: [seed], keywords: { tree: 1 }, strategy: { name: 'opic' },
        politeness: { delay_ms: 0, concurrency: 1, per_host_concurrency: 1, robots: false },
        limits: { max_pages: 100, max_depth: 3 },
      });
      const crawler = new Crawler({ config, dbPath, resolve: server.resolveMap(), mappedOnly: true, workers: 0 });
      const strat = crawler.strategyInstance as OpicStrategy;
      expect(strat.name).toBe(createStrategy('opic', cfg).name);
      crawler.on('start', () => snapshot(strat)); // the seed is queued when the run starts
      crawler.on('page', () => {
        snapshot(strat); // no expect() here: a throw in a listener becomes the page's recorded failure
        totals.push(strat.totalCash());
      });
      try {
        expect((await crawler.run()).reason).toBe('done');
      } finally {
        await crawler.close();
      }
    } finally {
      await server.close();
    }
    const db = openDatabase(dbPath, { readonly: true });
    let rows;
    let idOf: Map<string, number>;
    try {
      rows = [...exportRows(db)];
      idOf = new Map((db.prepare('SELECT id, url FROM urls').all() as { id: number; url: string }[]).map((r) => [r.url, r.id]));
    } finally {
      db.close();
    }
    expect(rows.length).toBe(reachable(3));
    expect(totals).toHaveLength(rows.length);
    for (const t of totals) expect(Math.abs(t - 1)).toBeLessThan(1e-9); // one seed: total cash 1
    const fetched = new Set<number>();
    rows.forEach((r, k) => {
      const id = idOf.get(r.url)!;
      const before = snaps[k];
      // the export's priority is what the strategy said the frontier holds (cash − Ω)
      expect(r.priority).toBeCloseTo(before.get(id)!.priority!, 12);
      const queuedCash = [...before].filter(([qid]) => !fetched.has(qid)).map(([, f]) => f.cash);
      expect(before.get(id)!.cash).toBeCloseTo(Math.max(...queuedCash), 12);
      fetched.add(id);
    });
    // depth-3 pages with links to unknown depth-4 pages only: their cash went to the virtual root, live
    expect(Math.max(...[...snaps.at(-1)!.values()].map((f) => f.root_history))).toBeGreaterThan(0);
  });
});
