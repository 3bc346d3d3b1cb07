import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAnalyzer, type AnalysisConfig } from '../../src/crawl/page-analysis.js';
import type { KnownUrl } from '../../src/frontier/frontier.js';
import { CONTEXT_SIDE, Parse5Parser } from '../../src/parse/html-parser.js';
import { KeywordScorer } from '../../src/relevance/keyword-scorer.js';
import { UrlState } from '../../src/frontier/url-state.js';
import { createFish, RELEVANT_BAND } from '../../src/strategy/fish.js';
import { createShark, SEED_INHERITED } from '../../src/strategy/shark.js';
import type { HistoryPage, LinkInfo, PageInfo } from '../../src/strategy/strategy.js';
import { generateSynthCorpus } from '../../src/eval/synth-corpus.js';
import type { TopicInput } from '../../src/topic/topic-schema.js';
import { crawlCorpus, readRows } from '../helpers/crawl-corpus.js';
import { strategyConfig } from '../helpers/strategy-config.js';
import { suiteTmpDir, tmpDir } from '../helpers/tmp.js';

const cfg = strategyConfig({ max_life: 3, delta: 0.5, beta: 0.8, gamma: 0.5 });
const page = (over: Partial<PageInfo> = {}): PageInfo => ({ id: 1, url: 'http://a.test/', depth: 0, life: 3, priority: 0, relevance: 0.8, relevant: true, ...over });
const link = (url: string, over: Partial<LinkInfo> = {}): LinkInfo => ({ url, host: new URL(url).host, depth: 1, anchor: '', known: null, inlinks: 1, inlinkScore: 0.9, ...over });
const known = (over: Partial<KnownUrl> = {}): KnownUrl => ({ id: 9, hostId: 1, state: UrlState.QUEUED, depth: 1, priority: 0, life: 2, inlinks: 1, inlinkScore: 0.5, ...over });

describe('fish', () => {
  it('gives children of relevant pages life + 1 and children of irrelevant ones life − 1, pruning at 0', () => {
    const s = createFish(cfg);
    expect(s.onPageFetched(page({ life: 2, relevant: true }), [link('http://a.test/x')])[0]).toMatchObject({ life: 3 });
    expect(s.onPageFetched(page({ life: 3, relevant: true }), [link('http://a.test/x')])[0]).toMatchObject({ life: 3 });
    expect(s.onPageFetched(page({ life: 2, relevant: false }), [link('http://a.test/x')])[0]).toMatchObject({ life: 1 });
    const [d] = s.onPageFetched(page({ life: 1, relevant: false }), [link('http://a.test/x')]);
    expect(d).toMatchObject({ prune: true, life: 0 });
  });

  it('puts the newest relevant page\'s children first, then children of irrelevant pages newest first, a page\'s links equal', () => {
    const s = createFish(cfg);
    const seed = s.seed('http://a.test/').priority;
    const rel1 = s.onPageFetched(page(), [link('http://a.test/1'), link('http://a.test/2')]).map((d) => d!.priority);
    const irr = s.onPageFetched(page({ relevant: false }), [link('http://a.test/3')]).map((d) => d!.priority);
    const rel2 = s.onPageFetched(page(), [link('http://a.test/4')]).map((d) => d!.priority);
    const irr2 = s.onPageFetched(page({ relevant: false }), [link('http://a.test/5')]).map((d) => d!.priority);
    expect(rel1[0]).toBe(rel1[1]);
    expect(rel2[0]).toBeGreaterThan(rel1[0]);
    expect(rel1[0]).toBeGreaterThan(seed);
    expect(seed).toBeGreaterThan(irr2[0]);
    expect(irr2[0]).toBeGreaterThan(irr[0]);
    expect(seed).toBe(RELEVANT_BAND);
  });

  it('keeps the larger life and priority of a known URL, revives a pruned one, leaves it alone otherwise', () => {
    const s = createFish(cfg);
    const [same] = s.onPageFetched(page({ life: 2, relevant: false }), [link('http://a.test/x', { known: known({ life: 2, priority: RELEVANT_BAND * 2 }) })]);
    expect(same).toBeNull();
    const [up] = s.onPageFetched(page({ life: 1, relevant: false }), [link('http://a.test/x', { known: known({ life: 2, priority: 0 }) })]);
    expect(up).toMatchObject({ life: 2 });
    expect(up!.priority).toBeGreaterThan(0);
    const [revived] = s.onPageFetched(page({ life: 3 }), [link('http://a.test/x', { known: known({ state: UrlState.PRUNED, life: 0 }) })]);
    expect(revived).toMatchObject({ life: 3 });
    expect(revived!.prune).toBeFalsy();
    const [still] = s.onPageFetched(page({ life: 1, relevant: false }), [link('http://a.test/x', { known: known({ state: UrlState.PRUNED, life: 0 }) })]);
    expect(still).toBeNull();
  });

  it('continues its counter after a resume, above every page so far', () => {
    const s = createFish(cfg);
    const history: HistoryPage[] = Array.from({ length: 7 }, (_, i) => ({ page: page({ id: i + 1 }), outlinks: [] }));
    s.resume!({ maxPriority: RELEVANT_BAND + 3, seeds: () => [], history: () => history, queued: () => [] });
    expect(s.onPageFetched(page({ relevant: false }), [link('http://a.test/x')])[0]!.priority).toBe(8);
  });
});

describe('shark', () => {
  it('scores a link γ·inherited + (1−γ)·(β·anchor + (1−β)·context), context 1 when the anchor scores', () => {
    const s = createShark(cfg);
    const [a, b, c] = s.onPageFetched(page({ relevance: 0.6 }), [
      link('http://a.test/a', { anchorScore: 0.4, contextScore: 0.2 }),
      link('http://a.test/b', { anchorScore: 0, contextScore: 0.3 }),
      link('http://a.test/c'),
    ]);
    const inh = 0.5 * 0.6;
    expect(a!.priority).toBeCloseTo(0.5 * inh + 0.5 * (0.8 * 0.4 + 0.2 * 1));
    expect(b!.priority).toBeCloseTo(0.5 * inh + 0.5 * (0.2 * 0.3));
    expect(c!.priority).toBeCloseTo(0.5 * inh);
  });

  it('an irrelevant page hands down δ times what it inherited; seeds inherit 1', () => {
    const s = createShark({ ...cfg, gamma: 1 });
    s.onSeeded!(1, 'http://a.test/');
    const seedPage = page({ id: 1, relevance: 0 });
    const [d1] = s.onPageFetched(seedPage, [link('http://a.test/x')]);
    expect(d1!.priority).toBeCloseTo(0.5 * SEED_INHERITED);
    s.onLinksStored!(seedPage, [link('http://a.test/x')], [2]);
    expect(s.explain!(2)).toEqual({ inherited: 0.5 });
    const [d2] = s.onPageFetched(page({ id: 2, relevance: 0, relevant: false }), [link('http://a.test/y')]);
    expect(d2!.priority).toBeCloseTo(0.25);
    // a relevant page hands down δ·sim, whatever it inherited
    const [d3] = s.onPageFetched(page({ id: 2, relevance: 0.9 }), [link('http://a.test/y')]);
    expect(d3!.priority).toBeCloseTo(0.45);
  });

  it('prunes like fish and keeps the larger potential score of a known URL', () => {
    const s = createShark(cfg);
    expect(s.onPageFetched(page({ life: 1, relevant: false, relevance: 0.1 }), [link('http://a.test/x')])[0]).toMatchObject({ prune: true });
    const [k] = s.onPageFetched(page({ relevance: 0.2 }), [link('http://a.test/x', { known: known({ priority: 0.99, life: 1 }) })]);
    expect(k).toMatchObject({ priority: 0.99, life: 3 });
  });

  it('rebuilds inherited scores on resume exactly as they were built live', () => {
    const live = createShark(cfg);
    const pages: HistoryPage[] = [
      { page: page({ id: 1, relevance: 0 }), outlinks: [2, 3] },
      { page: page({ id: 2, relevance: 0.4 }), outlinks: [3, 4, 5000] },
      { page: page({ id: 3, relevance: 0, relevant: false }), outlinks: [5, 4] },
      // a redirect: relevance null, its stored link never went through the strategy
      { page: page({ id: 4, relevance: null }), outlinks: [6] },
    ];
    live.onSeeded!(1, 'http://a.test/');
    for (const h of pages) {
      if (h.page.relevance === null) continue;
      const links = h.outlinks.map((id) => link(`http://a.test/${id}`));
      live.onPageFetched(h.page, links);
      live.onLinksStored!(h.page, links, h.outlinks);
    }
    const resumed = createShark(cfg);
    resumed.resume!({ maxPriority: 1, seeds: () => [{ id: 1, url: 'http://a.test/' }], history: () => pages, queued: () => [] });
    for (const id of [1, 2, 3, 4, 5, 6, 5000]) expect(resumed.explain!(id)).toEqual(live.explain!(id));
    expect(live.explain!(4)!.inherited).toBeCloseTo(0.25); // max(δ·sim(2) = 0.2, δ·inherited(3) = 0.5·0.5)
    expect(live.explain!(6)!.inherited).toBe(0);
  });
});

describe('link context and link scores', () => {
  const parser = new Parse5Parser();
  const links = (html: string) => parser.parse(html, 'http://a.test/').links;

  it('takes the nearest block around the link, without the anchor', () => {
    const [a, b] = links('<div>outer <p>Read about <a href="/t">tobacco</a> leaf prices.</p><a href="/u">U</a> tail</div>');
    expect(a.context).toBe('Read about\nleaf prices.');
    expect(b.context).toBe('outer\nRead about tobacco leaf prices.\ntail');
  });

  it('keeps at most CONTEXT_SIDE characters on each side, whole words', () => {
    const [l] = links(`<p>${'alpha '.repeat(200)}<a href="/x">x</a>${' omega'.repeat(200)}</p>`);
    const [before, after] = l.context.split('\n');
    expect(before.length).toBeLessThanOrEqual(CONTEXT_SIDE);
    expect(before.length).toBeGreaterThan(CONTEXT_SIDE - 24);
    expect(before.split(' ').every((w) => w === 'alpha')).toBe(true);
    expect(after.split(' ').every((w) => w === 'omega')).toBe(true);
    expect(after.length).toBeLessThanOrEqual(CONTEXT_SIDE);
  });

  it('page analysis scores anchors and contexts with the page scorer and carries them per link', () => {
    const acfg: AnalysisConfig = {
      keywords: { tobacco: 1 }, fields: { title: 3, headings: 2, anchor: 2, body: 1 },
      scope: { hosts: [], include: [], exclude: [] }, scopeOptions: {}, normalize: {}, followCanonical: false,
    };
    const analyze = createAnalyzer(acfg);
    const html = '<html><body><ul><li><a href="/a">Tobacco news</a> daily</li><li>Leaf tobacco: <a href="/b">prices</a></li><li><a href="/c">Weather</a> today</li></ul>'
      + '<p><a href="/b">more</a> about tobacco</p></body></html>';
    const out = analyze({ url: 'http://a.test/', host: 'a.test', body: new TextEncoder().encode(html), contentType: 'text/html', html: true, anchors: [] });
    const by = new Map(out.links.map((l) => [l.url, l]));
    const scorer = new KeywordScorer({ keywords: acfg.keywords, fields: acfg.fields });
    expect(by.get('http://a.test/a')!.anchorScore).toBeCloseTo(scorer.scoreText('Tobacco news'));
    expect(by.get('http://a.test/a')!.anchorScore).toBeGreaterThan(0);
    expect(by.get('http://a.test/a')!.contextScore).toBe(0);
    expect(by.get('http://a.test/b')!.anchorScore).toBe(0); // "prices | more"
    expect(by.get('http://a.test/b')!.contextScore).toBeGreaterThan(0);
    expect(by.get('http://a.test/b')!.contextScore).toBeCloseTo(Math.max(scorer.scoreText('Leaf tobacco:'), scorer.scoreText('about tobacco')));
    expect(by.get('http://a.test/c')).toMatchObject({ anchorScore: 0, contextScore: 0 });
  });
});

describe('fish and shark through the crawl loop', () => {
  const corpus = suiteTmpDir();
  generateSynthCorpus(corpus, { seed: 11, pages: 300, hosts: 12 });
  const seeds = (JSON.parse(readFileSync(join(corpus, 'corpus.json'), 'utf8')) as { seeds: string[] }).seeds;
  const topic = (name: string): TopicInput => ({
    name: 'fish-shark', seeds, keywords: { astronomy: 1, telescope: 1, galaxy: 1, star: 0.5, planet: 0.5 },
    strategy: { name, max_life: 2 }, politeness: { delay_ms: 0, concurrency: 1, per_host_concurrency: 1, robots: true }, limits: { max_pages: 150 },
  });

  for (const name of ['fish', 'shark']) {
    it(`${name}: prunes, and a crawl stopped and resumed fetches exactly what an uninterrupted one does, in the same order`, { timeout: 60_000 }, async () => {
      const dir = tmpDir();
      const whole = await crawlCorpus(corpus, topic(name), join(dir, 'whole.db'));
      expect(whole.summary.pruned).toBeGreaterThan(0);
      const db = join(dir, 'resumed.db');
      await crawlCorpus(corpus, topic(name), db, { stopAfter: 41 });
      const second = await crawlCorpus(corpus, topic(name), db);
      expect(second.summary.resumed).toBe(true);
      expect(readRows(db).map((r) => r.url)).toEqual(whole.rows.map((r) => r.url));
    });
  }
});
