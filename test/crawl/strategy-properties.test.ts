import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { intakeLinks } from '../../src/crawl/link-intake.js';
import type { AnalyzedLink } from '../../src/crawl/page-analysis.js';
import { queueAsSeeds } from '../../src/crawl/seeds.js';
import { EmbeddedFrontier } from '../../src/frontier/embedded-frontier.js';
import { SqliteFrontier } from '../../src/frontier/sqlite-frontier.js';
import { UrlState } from '../../src/frontier/url-state.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { childLife } from '../../src/strategy/fish-life.js';
import { createStrategy, STRATEGIES } from '../../src/strategy/registry.js';
import type { PageInfo } from '../../src/strategy/strategy.js';
import { hostKey } from '../../src/url/host.js';
import { urlHash } from '../../src/url/url-hash.js';
import { crawlCorpus } from '../helpers/crawl-corpus.js';
import { strategyConfig } from '../helpers/strategy-config.js';
import { suiteTmpDir } from '../helpers/tmp.js';

/** Strategies whose decisions follow Fish-Search life (the others carry max_life and never prune). */
const FISH_LIFE = new Set(['fish', 'shark', 'best-first-fish', 'learning']);
const THRESHOLD = 0.5;

/** A random web: page i has a relevance and links to other pages (by index), spread over three hosts. */
const webArb: fc.Arbitrary<Web> = fc
  .integer({ min: 2, max: 24 })
  .chain((n) =>
    fc.record({
      maxLife: fc.integer({ min: 1, max: 3 }),
      pages: fc.array(
        fc.record({
          relevance: fc.integer({ min: 0, max: 10 }).map((x) => x / 10),
          links: fc.array(fc.record({ to: fc.integer({ min: 0, max: n - 1 }), anchor: fc.double({ min: 0, max: 1, noNaN: true }), context: fc.double({ min: 0, max: 1, noNaN: true }) }), { maxLength: 8 }),
        }),
        { minLength: n, maxLength: n },
      ),
    }),
  );
const urlOf = (i: number) => `http://h${i % 3}.test/p${i}`;
interface Web {
  maxLife: number;
  pages: { relevance: number; links: { to: number; anchor: number; context: number }[] }[];
}

/**
 * Crawls a random web through the real intake path (intakeLinks on a SqliteFrontier over a temp
 * SQLite file, hooks applied as page-processor applies them) and checks after every page that no
 * URL waits with life 0, that the pruned count is the number of new URLs stored as pruned, and, for
 * Fish-life strategies, that pruning follows childLife exactly and known URLs keep the larger life.
 */
async function crawlWeb(dbPath: string, name: string, web: Web): Promise<void> {
  const store = new SqliteStore(dbPath);
  try {
    const local = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1 });
    const frontier = new EmbeddedFrontier(local, { maxPages: Infinity, maxPagesPerHost: Infinity, counted: 0, hostCounted: new Map() });
    const strategy = createStrategy(name, strategyConfig({ max_life: web.maxLife }));
    const indexOf = new Map(web.pages.map((_, i) => [urlOf(i), i]));
    const row = store.db.prepare('SELECT state, life FROM urls WHERE id = ?');
    const waitingDead = store.db.prepare(`SELECT COUNT(*) AS n FROM urls WHERE state = ${UrlState.QUEUED} AND life < 1`);
    await queueAsSeeds(frontier, strategy, [{ url: urlOf(0), depth: 0, note: null }]);
    let prunedCounted = 0;
    let prunedStored = 0;
    for (let pages = 0; pages < 100; pages++) {
      const n = local.next(0);
      if (n.kind !== 'url') break;
      const item = n.item;
      const src = web.pages[indexOf.get(item.url)!];
      const page: PageInfo = { id: item.id, url: item.url, depth: item.depth, life: item.life, priority: item.priority, relevance: src.relevance, relevant: src.relevance >= THRESHOLD };
      const seen = new Set<number>();
      const found: AnalyzedLink[] = [];
      for (const l of src.links) {
        if (seen.has(l.to) || urlOf(l.to) === item.url) continue;
        seen.add(l.to);
        const url = urlOf(l.to);
        found.push({ url, hash: new Uint8Array(urlHash(url)), host: hostKey(url), anchor: `a${l.to}`, anchorScore: l.anchor, contextScore: l.context, location: Number.NaN });
      }
      const before = local.lookup(found.map((l) => Buffer.from(l.hash)));
      const out = await intakeLinks({ frontier, strategy, maxDepth: 50 }, page, found);
      const { pruned: outPruned } = await out.answer;
      store.transaction(() => {
        store.recordLinks(item.id, out.links);
        store.recordOutcome({
          urlId: item.id, state: UrlState.FETCHED, status: 200, error: null, relevance: page.relevance, relevant: page.relevant, contentHash: null,
          fetchedAt: 0, fetchSeq: store.nextFetchSeq(), fetchPriority: item.priority,
        });
        const updates = strategy.takeUpdates?.();
        if (updates?.length) local.reprioritize(updates);
        prunedCounted += outPruned;
        let prunedNew = 0;
        const life = childLife(page.life, page.relevant, web.maxLife);
        found.forEach((l, i) => {
          const k = before.get(Buffer.from(l.hash).toString('hex'));
          const now = row.get(out.links[i].toId) as { state: number; life: number };
          if (!k) {
            if (now.state === UrlState.PRUNED) prunedNew++;
            if (FISH_LIFE.has(name)) expect(now.state).toBe(life === 0 ? UrlState.PRUNED : UrlState.QUEUED);
          } else if (FISH_LIFE.has(name) && (k.state === UrlState.QUEUED || k.state === UrlState.PRUNED)) {
            expect(now.life).toBe(Math.max(k.life, life));
            expect(now.state).toBe(Math.max(k.life, life) > 0 ? UrlState.QUEUED : UrlState.PRUNED);
          }
        });
        expect(outPruned).toBe(prunedNew);
        prunedStored += prunedNew;
      });
      local.release(item, 0);
      expect((waitingDead.get() as { n: number }).n).toBe(0);
    }
    expect(prunedCounted).toBe(prunedStored);
    if (!FISH_LIFE.has(name)) expect(prunedCounted).toBe(0);
  } finally {
    store.close();
  }
}

describe('property: no URL waits with life 0 (real intake path, SQLite frontier)', () => {
  const dir = suiteTmpDir();
  let run = 0;
  for (const name of Object.keys(STRATEGIES)) {
    it(`${name}: every queued URL has life ≥ 1 and pruned URLs are counted`, async () => {
      await fc.assert(
        fc.asyncProperty(webArb, (web) => crawlWeb(join(dir, `w${run++}.db`), name, web)),
        { numRuns: FISH_LIFE.has(name) ? 60 : 15 },
      );
    });
  }

  it('the random webs do prune (the property is not vacuous for fish)', async () => {
    // an irrelevant seed with max_life 1: its children have life 0
    const web = { maxLife: 1, pages: [{ relevance: 0, links: [{ to: 1, anchor: 0, context: 0 }] }, { relevance: 0, links: [] }] };
    const path = join(dir, `w${run++}.db`);
    await crawlWeb(path, 'fish', web);
    const store = new SqliteStore(path);
    try {
      expect((store.db.prepare(`SELECT COUNT(*) AS n FROM urls WHERE state = ${UrlState.PRUNED}`).get() as { n: number }).n).toBe(1);
    } finally {
      store.close();
    }
  });
});

/** A seed page linking to `names` (in that order) on one host, each a leaf page; nothing else. */
function writeFanCorpus(dir: string, names: string[]): void {
  const site = join(dir, 'site', 'a.test');
  mkdirSync(join(site, 'p'), { recursive: true });
  const items = names.map((n) => `<li>item <a href="/p/${n}.html">page</a></li>`).join('\n');
  writeFileSync(join(site, 'index.html'), `<!doctype html><html><head><title>tobacco hub</title></head><body><h1>tobacco</h1><ul>${items}</ul></body></html>`);
  for (const n of names) writeFileSync(join(site, 'p', `${n}.html`), `<!doctype html><html><head><title>${n}</title></head><body><p>leaf ${n}</p></body></html>`);
  writeFileSync(join(dir, 'corpus.json'), JSON.stringify({ name: 'fan', description: 'fan-out', license: 'CC0-1.0', seeds: ['http://a.test/'], labels: {} }));
  writeFileSync(join(dir, 'labels.tsv'), 'url\tlabels\n');
}

describe('property: every registered strategy breaks ties first-in first-out (real crawl loop)', () => {
  const root = suiteTmpDir();
  let run = 0;
  for (const name of Object.keys(STRATEGIES)) {
    it(`${name}: links of one page with equal standing are fetched in discovery (document) order`, { timeout: 60_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 0, max: 99 }), { minLength: 3, maxLength: 7 }), async (ks) => {
          const dir = join(root, `fan${run++}`);
          const names = ks.map((k) => `n${k}`);
          writeFanCorpus(dir, names);
          const { rows } = await crawlCorpus(dir, {
            name: 'fan', seeds: ['http://a.test/'], keywords: { tobacco: 1 }, strategy: { name },
            politeness: { delay_ms: 0, concurrency: 1, per_host_concurrency: 1, robots: true }, limits: { max_pages: 50 },
          }, join(dir, 'crawl.db'));
          const fetched = rows.filter((r) => r.status === 200).map((r) => r.url);
          expect(fetched).toEqual(['http://a.test/', ...names.map((n) => `http://a.test/p/${n}.html`)]);
        }),
        { numRuns: 2 },
      );
    });
  }
});
