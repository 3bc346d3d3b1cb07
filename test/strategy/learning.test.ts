import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explainPriority } from '../../src/cli/explain-report.js';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { createLearning } from '../../src/strategy/learning.js';
import { createLocationMetric } from '../../src/strategy/location-metric.js';
import { fnv1a, LinkModel, sigmoid } from '../../src/strategy/link-model.js';
import type { LinkedHistoryPage, LinkInfo, PageInfo, Strategy } from '../../src/strategy/strategy.js';
import { crawlCorpus, repoRoot } from '../helpers/crawl-corpus.js';
import { strategyConfig } from '../helpers/strategy-config.js';
import { tmpDir } from '../helpers/tmp.js';

type Learning = Strategy & { stats(): { examples: number; positives: number; explored: number; rescored: number; checksum: number } };
const learning = (over = {}) => createLearning(strategyConfig({ name: 'learning', ...over } as never)) as Learning;

const page = (id: number, url: string, relevant: boolean, depth = 1): PageInfo => ({
  id, url, depth, life: 3, priority: 0.5, relevance: relevant ? 0.9 : 0.1, relevant,
});
const link = (url: string, anchor = 'more'): LinkInfo => ({
  url, host: new URL(url).hostname, depth: 2, anchor, known: null, inlinks: 1, inlinkScore: 0, anchorScore: 0, contextScore: 0,
});

describe('the link model', () => {
  it('starts as a monotone function of the prior and learns a feature from examples', () => {
    const m = new LinkModel({ bits: 12, rate: 0.2, l2: 1e-4, priorWeight: 8 });
    const z = (prior: number, extra: number[] = []) => {
      const idx = [m.bias, m.prior, ...extra];
      const val = [1, prior, ...extra.map(() => 1)];
      return m.logit(idx, val, idx.length);
    };
    const priors = [0.1, 0.3, 0.5, 0.7, 0.9];
    const before = priors.map((p) => z(p));
    expect([...before].sort((a, b) => a - b)).toEqual(before);
    expect(sigmoid(z(0.5))).toBeCloseTo(0.5, 12);
    const good = m.index('u:good');
    const bad = m.index('u:bad');
    expect(z(0.5, [good])).toBe(z(0.5, [bad]));
    for (let i = 0; i < 30; i++) {
      m.learn([m.bias, m.prior, good], [1, 0.5, 1], 3, 1);
      m.learn([m.bias, m.prior, bad], [1, 0.5, 1], 3, 0);
    }
    expect(z(0.5, [good])).toBeGreaterThan(z(0.5, [bad]) + 1);
    expect(m.examples).toBe(60);
    expect(m.positives).toBe(30);
    // unseen features are the most uncertain
    expect(m.uncertainty([m.bias, m.prior, m.index('u:never')], 3)).toBe(1);
    expect(m.uncertainty([m.bias, m.prior, good], 3)).toBeLessThan(0.2);
  });

  it('is deterministic: the same examples in the same order give the same weights, another order does not', () => {
    const examples = Array.from({ length: 50 }, (_, i) => ({ f: [`a:w${i % 7}`, `h:h${i % 3}`], y: i % 3 === 0 ? 1 : 0 }));
    const train = (order: typeof examples) => {
      const m = new LinkModel({ bits: 12, rate: 0.1, l2: 1e-4, priorWeight: 8 });
      for (const e of order) {
        const idx = [m.bias, ...e.f.map((f) => m.index(f))];
        m.learn(idx, idx.map(() => 1), idx.length, e.y);
      }
      return m.checksum();
    };
    expect(train(examples)).toBe(train(examples));
    expect(train([...examples].reverse())).not.toBe(train(examples));
    expect(fnv1a('bias')).toBe(fnv1a('bias'));
  });
});

describe('the learning strategy', () => {
  it('ranks links as best-first does before any example, then learns which URLs lead to relevant pages', () => {
    const s = learning({ explore: 0 });
    // before any example: a link whose parent and anchor are more relevant ranks first, as I(p)
    const root = page(1, 'http://a.test/', false, 0);
    const [hi, lo] = s.onPageFetched(root, [{ ...link('http://a.test/x/1.html'), anchorScore: 0.9 }, link('http://a.test/x/2.html')]);
    expect(hi!.priority).toBeGreaterThan(lo!.priority);
    // links to /good/ lead to relevant pages, links to /bad/ do not (same anchors, same parent)
    let id = 10;
    let good = 0;
    let bad = 0;
    for (let round = 0; round < 40; round++) {
      const links = [link(`http://a.test/good/${round}.html`), link(`http://a.test/bad/${round}.html`)];
      const d = s.onPageFetched(page(1000 + round, `http://a.test/hub${round}.html`, false), links);
      if (round === 0) expect(d[0]!.priority).toBeCloseTo(d[1]!.priority, 12);
      if (round === 39) [good, bad] = [d[0]!.priority, d[1]!.priority];
      const ids = [id++, id++];
      s.onLinksStored!(page(1000 + round, `http://a.test/hub${round}.html`, false), links, ids);
      // both are fetched: the good one was relevant
      s.onLinksStored!(page(ids[0], links[0].url, true, 2), [], []);
      s.onLinksStored!(page(ids[1], links[1].url, false, 2), [], []);
    }
    expect(good).toBeGreaterThan(bad * 1.5);
    const st = s.stats();
    expect(st.examples).toBe(80);
    expect(st.positives).toBe(40);
  });

  it("takes a link's IL from page analysis when given (LinkInfo.location): the same decisions and model as its own", () => {
    const cfg = strategyConfig({ name: 'learning', explore: 0, location: { tokens: { good: 1, hub: 0.5 }, tld: { test: 0.2 }, segment_penalty: 0.2 } } as never);
    const il = createLocationMetric(cfg.location);
    const own = createLearning(cfg) as Learning;
    const given = createLearning(cfg) as Learning;
    const odd = createLearning(cfg) as Learning;
    let id = 10;
    let differs = false;
    for (let round = 0; round < 30; round++) {
      const hub = page(1000 + round, `http://a.test/hub${round}.html`, round % 3 === 0);
      const links = [link(`http://a.test/good/${round}.html`), link(`http://a.test/bad/x/${round}.html`)];
      const d = own.onPageFetched(hub, links);
      expect(given.onPageFetched(hub, links.map((l) => ({ ...l, location: il(l.url) })))).toEqual(d);
      // and it is the given value that counts
      const o = odd.onPageFetched(hub, links.map((l) => ({ ...l, location: 1 - il(l.url) })));
      if (o.some((x, i) => x!.priority !== d[i]!.priority)) differs = true;
      const ids = [id++, id++];
      for (const s of [own, given, odd]) {
        s.onLinksStored!(hub, links, ids);
        s.onLinksStored!(page(ids[0], links[0].url, true, 2), [], []);
        s.onLinksStored!(page(ids[1], links[1].url, false, 2), [], []);
      }
    }
    expect(given.stats()).toEqual(own.stats());
    expect(own.stats().examples).toBeGreaterThan(40);
    expect(differs).toBe(true);
  });

  it('learns how relevant the pages behind a link are, not only whether they pass the threshold', () => {
    const s = learning({ explore: 0 });
    let id = 10;
    let hi = 0;
    let mid = 0;
    for (let round = 0; round < 40; round++) {
      const links = [link(`http://a.test/hi/${round}.html`), link(`http://a.test/mid/${round}.html`)];
      const hub = page(1000 + round, `http://a.test/hub${round}.html`, false);
      const d = s.onPageFetched(hub, links);
      if (round === 39) [hi, mid] = [d[0]!.priority, d[1]!.priority];
      const ids = [id++, id++];
      s.onLinksStored!(hub, links, ids);
      // both are relevant (above the threshold): one very, one barely
      s.onLinksStored!({ ...page(ids[0], links[0].url, true, 2), relevance: 0.95 }, [], []);
      s.onLinksStored!({ ...page(ids[1], links[1].url, true, 2), relevance: 0.35 }, [], []);
    }
    expect(hi).toBeGreaterThan(mid * 1.3);
  });

  it('re-scores the siblings of a recorded page at once, not only every learn_every pages', () => {
    const s = learning({ explore: 0, learn_every: 1_000_000 });
    let id = 10;
    const hubOf = (n: number, good: boolean) => {
      const hub = page(id++, `http://a.test/list${n}.html`, false);
      const links = [0, 1, 2].map((i) => link(`http://a.test/u${n}x${i}/home.html`, `name ${n} ${i}`));
      const given = s.onPageFetched(hub, links).map((d) => d!.priority);
      const ids = links.map(() => id++);
      s.onLinksStored!(hub, links, ids);
      return { links, ids, good, given };
    };
    // lists whose pages are all relevant and lists whose pages are all not: siblings tell
    for (let n = 0; n < 30; n++) {
      const h = hubOf(n, n % 2 === 0);
      h.ids.forEach((cid, i) => {
        s.onLinksStored!(page(cid, h.links[i].url, h.good, 2), [], []);
        s.takeUpdates!();
      });
    }
    const fresh = hubOf(100, true);
    const other = hubOf(101, true);
    expect(s.takeUpdates!()).toEqual([]);
    // the first page of the fresh list is relevant: its two siblings go up before the next fetch
    s.onLinksStored!(page(fresh.ids[0], fresh.links[0].url, true, 2), [], []);
    const up = s.takeUpdates!().sort((a, b) => a.id - b.id);
    // (the other list's pages stay where they were until one of them is recorded)
    expect(up.map((u) => u.id)).toEqual([fresh.ids[1], fresh.ids[2]]);
    expect(up[0].priority).toBeGreaterThan(fresh.given[1] + 0.02);
    expect(up[1].priority).toBeGreaterThan(fresh.given[2] + 0.02);
  });

  it('learns nothing from a redirect: the link led on to its target, whose own outcome counts', () => {
    const run = (redirect: boolean) => {
      const s = learning();
      const root = page(1, 'http://a.test/', true, 0);
      const links = [link('http://a.test/old.html')];
      s.onPageFetched(root, links);
      s.onLinksStored!(root, links, [2]);
      // /old.html answered: a redirect to /new.html (id 3, recorded without relevance, its one link
      // the target), or a page of its own
      if (redirect) s.onLinksStored!({ ...page(2, 'http://a.test/old.html', false), relevance: null }, [], [3]);
      else s.onLinksStored!(page(2, 'http://a.test/old.html', false), [], []);
      return s.stats().examples;
    };
    expect(run(false)).toBe(1);
    expect(run(true)).toBe(0);
  });

  it('spends about its exploration share of the recorded pages on links it is unsure about', () => {
    const s = learning({ explore: 0.1, rescore_budget: 0 });
    let id = 1;
    let boosted = 0;
    for (let n = 0; n < 200; n++) {
      const p = page(id++, `http://a.test/p${n}.html`, n % 2 === 0);
      const links = [link(`http://h${n}.test/new${n}.html`, `word${n}`)];
      const d = s.onPageFetched(p, links);
      if (d[0]!.priority >= 1) boosted++;
      s.onLinksStored!(p, links, [id++]);
    }
    // 200 recorded pages × 0.1 = 20 credits, spent on links made of unseen words
    expect(boosted).toBeGreaterThanOrEqual(19);
    expect(boosted).toBeLessThanOrEqual(20);
    expect(s.stats().explored).toBe(boosted);
  });
});

describe('the learning strategy on resume', () => {
  it('replays the history with the anchors rescored by the page scorer: the same model as live', () => {
    // the anchor scorer of the crawl: anchors that say "tea" are on-topic
    const scoreText = (t: string) => (t.includes('tea') ? 0.8 : 0);
    const live = learning();
    const history: LinkedHistoryPage[] = [];
    let id = 100;
    const seeds = [{ id: 1, url: 'http://a.test/' }];
    live.onSeeded!(1, seeds[0].url);
    let parent = page(1, seeds[0].url, false, 0);
    for (let n = 0; n < 30; n++) {
      const links = [link(`http://a.test/t${n}.html`, `green tea ${n}`), link(`http://b.test/x${n}.html`, `other ${n}`)].map((l) => ({ ...l, anchorScore: scoreText(l.anchor) }));
      live.onPageFetched(parent, links);
      const ids = [id++, id++];
      live.onLinksStored!(parent, links, ids);
      history.push({ page: parent, outlinks: ids, urls: links.map((l) => l.url), anchors: links.map((l) => l.anchor) });
      parent = page(ids[n % 2], links[n % 2].url, n % 2 === 0, 1);
    }
    const replay = (fn?: (t: string) => number) => {
      const r = learning();
      r.resume!({ maxPriority: 1, seeds: () => seeds, history: () => history, linkedHistory: () => history, queued: () => [], scoreText: fn });
      const { examples, positives, checksum } = r.stats();
      return { examples, positives, checksum };
    };
    const { examples, positives, checksum } = live.stats();
    expect(replay(scoreText)).toEqual({ examples, positives, checksum });
    expect(replay(scoreText).examples).toBe(30);
    expect(replay(() => 0).checksum).not.toBe(live.stats().checksum);
  });
});

describe('the learning strategy in a real crawl', () => {
  const corpus = join(repoRoot, 'corpora', 'tobacco-demo');
  const topic = (maxPages: number) => ({
    name: 'tobacco', seeds: ['http://www.tobacco-info.example/'], keywords: { 烟草: 1, 香烟: 0.8, tobacco: 1, cigarette: 0.8 },
    strategy: { name: 'learning', learn_every: 5 }, limits: { max_pages: maxPages },
    politeness: { delay_ms: 0, concurrency: 4, per_host_concurrency: 2 },
  });

  it('resumes with the model it had: the crawl file replayed gives the same weights, bit for bit', async () => {
    const db = join(tmpDir('learning-'), 'resume.db');
    const live = learning();
    const first = await crawlCorpus(corpus, topic(80), db, { stopAfter: 35, strategy: live });
    expect(first.summary.fetched).toBeGreaterThanOrEqual(35);
    const liveStats = live.stats();
    expect(liveStats.examples).toBeGreaterThan(20);
    // the same file opened again, with a budget already spent: the strategy is only resumed
    const resumed = learning();
    const again = await crawlCorpus(corpus, topic(first.summary.fetched), db, { strategy: resumed });
    expect(again.rows.length).toBe(first.rows.length);
    expect(resumed.stats().examples).toBe(liveStats.examples);
    expect(resumed.stats().positives).toBe(liveStats.positives);
    expect(resumed.stats().checksum).toBe(liveStats.checksum);
  }, 60_000);

  it('explain shows the model score and its largest features for a queued URL', async () => {
    const db = join(tmpDir('learning-'), 'explain.db');
    await crawlCorpus(corpus, topic(30), db);
    const conn = openDatabase(db, { readonly: true });
    try {
      const q = conn.prepare('SELECT url FROM urls WHERE state = 0 ORDER BY priority DESC LIMIT 1').get() as { url: string } | undefined;
      expect(q).toBeDefined();
      const e = explainPriority(conn, q!.url)!;
      const figures = e.strategy.figures as Record<string, string | number>;
      expect(e.strategy.error).toBeNull();
      expect(typeof figures.model_score).toBe('number');
      expect(figures.model_examples).toBeGreaterThan(10);
      expect(String(figures.largest_features)).toMatch(/prior=[\d.]+×[-\d.]+/);
    } finally {
      conn.close();
    }
  }, 60_000);
});
