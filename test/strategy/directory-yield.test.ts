import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DirectoryYield, directoryOf, REFACTOR } from '../../src/strategy/directory-yield.js';
import type { HistoryPage, PageInfo } from '../../src/strategy/strategy.js';
import { crawlCorpus } from '../helpers/crawl-corpus.js';
import { suiteTmpDir } from '../helpers/tmp.js';

const tmp = suiteTmpDir('dir-yield-');

const page = (id: number, url: string, relevance: number | null, relevant = false): PageInfo => ({ id, url, depth: 1, life: 3, priority: 0, relevance, relevant });

describe('directoryOf', () => {
  it.each([
    ['http://a.edu/courses/cs1.html', 'a.edu/courses/'],
    ['http://a.edu/courses/', 'a.edu/courses/'],
    ['http://a.edu/', 'a.edu/'],
    ['http://a.edu:8080/x/y?q=/z#f/g', 'a.edu:8080/x/'],
    ['https://a.edu/x/y/z.html', 'a.edu/x/y/'],
  ])('%s → %s', (url, dir) => expect(directoryOf(url)).toBe(dir));
});

describe('DirectoryYield', () => {
  it('factor = (S + k)/(n + k) with hysteresis, 1 for unseen directories, off with k = 0', () => {
    const k = 3;
    const y = new DirectoryYield(k);
    expect(y.factorFor('http://a.edu/dead/x.html')).toBe(1);
    let applied = 1;
    for (let n = 1; n <= 8; n++) {
      y.recorded(page(n, `http://a.edu/dead/${n}.html`, null), []);
      const live = k / (n + k);
      if (Math.abs(live - applied) > REFACTOR * applied) applied = live;
      expect(y.factorFor('http://a.edu/dead/other.html')).toBeCloseTo(applied, 12);
    }
    expect(applied).toBeLessThan(0.5);
    // relevant pages keep their directory at 1; an irrelevant page counts its relevance
    y.recorded(page(20, 'http://a.edu/good/1.html', 0.9, true), []);
    y.recorded(page(21, 'http://a.edu/good/2.html', 0.8, true), []);
    expect(y.factorFor('http://a.edu/good/3.html')).toBe(1);
    y.recorded(page(22, 'http://a.edu/some/1.html', 0.2, false), []);
    y.recorded(page(23, 'http://a.edu/some/2.html', 0.2, false), []);
    expect(y.factorFor('http://a.edu/some/x')).toBeCloseTo((0.4 + k) / (2 + k), 12);
    const off = new DirectoryYield(0);
    for (let n = 1; n <= 8; n++) off.recorded(page(n, `http://a.edu/dead/${n}.html`, null), []);
    expect(off.factorFor('http://a.edu/dead/x')).toBe(1);
    expect(off.takeUpdates()).toEqual([]);
  });

  it('re-ranks the waiting URLs of a directory whose factor moved (base × factor), not recorded ones or other directories', () => {
    const y = new DirectoryYield(3);
    y.track(1, 'http://a.edu/d/1.html', 0.8);
    y.track(2, 'http://a.edu/d/2.html', 0.5);
    y.track(3, 'http://a.edu/d/3.html', 0.4);
    y.track(9, 'http://b.edu/d/9.html', 0.7);
    y.recorded(page(3, 'http://a.edu/d/3.html', null), []); // a 404: leaves the queue, counts 0
    const ups = y.takeUpdates();
    const f = 3 / 4;
    expect(ups.sort((a, b) => a.id - b.id)).toEqual([
      { id: 1, priority: 0.8 * f },
      { id: 2, priority: 0.5 * f },
    ]);
    expect(y.takeUpdates()).toEqual([]);
    // a redirect (no relevance, a target id) counts neither way
    y.recorded(page(1, 'http://a.edu/d/1.html', null), [42]);
    expect(y.factorFor('http://a.edu/d/x')).toBeCloseTo(f, 12);
    expect(y.takeUpdates()).toEqual([]);
  });

  it('a URL known by its id gets the same factor, updates and counts as one looked up by its URL (random sequences)', () => {
    // the crawl passes a known link's id so that its directory is not cut out of its URL again: the
    // answers must be those of a yield that only ever sees URLs
    let seed = 7;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const urlOf = (id: number) => `http://${['a', 'b'][id % 2]}.edu/d${id % 5}/${id % 3 ? 'x/' : ''}${id}.html`;
    for (let run = 0; run < 20; run++) {
      const byId = new DirectoryYield(1 + run % 3);
      const byUrl = new DirectoryYield(1 + run % 3);
      for (let step = 0; step < 400; step++) {
        const id = 1 + Math.floor(rnd() * 60);
        const url = urlOf(id);
        const r = rnd();
        if (r < 0.5) {
          const base = rnd();
          byId.track(id, url, base);
          byUrl.track(id, url, base);
        } else if (r < 0.8) {
          const relevance = rnd() < 0.2 ? null : rnd();
          const p = page(id, url, relevance, relevance !== null && relevance > 0.6);
          byId.recorded(p, []);
          byUrl.recorded(p, []);
        } else {
          expect(byId.takeUpdates()).toEqual(byUrl.takeUpdates());
        }
        const probe = 1 + Math.floor(rnd() * 60);
        expect(byId.factorFor(urlOf(probe), probe)).toBe(byUrl.factorFor(urlOf(probe)));
      }
      for (let id = 1; id <= 60; id++) expect(byId.explain(id)).toEqual(byUrl.explain(id));
    }
  });

  it('resume: replaying the history gives the live factors, and bases from the stored priorities', () => {
    const live = new DirectoryYield(2);
    const history: HistoryPage[] = [];
    const stored = new Map<number, { url: string; priority: number }>();
    const queue = (id: number, url: string, base: number) => {
      live.track(id, url, base);
      stored.set(id, { url, priority: base * live.factorFor(url) });
    };
    queue(1, 'http://a.edu/x/1', 0.9);
    queue(2, 'http://a.edu/x/2', 0.6);
    queue(3, 'http://a.edu/y/3', 0.5);
    queue(4, 'http://a.edu/x/4', 0.3);
    for (const [id, rel] of [[1, null], [3, 0.9]] as const) {
      const p = page(id, stored.get(id)!.url, rel, rel !== null && rel > 0.5);
      live.recorded(p, []);
      history.push({ page: p, outlinks: [] });
      stored.delete(id);
      for (const u of live.takeUpdates()) stored.get(u.id)!.priority = u.priority;
    }
    const resumed = new DirectoryYield(2);
    // the four URLs were queued as seeds (tracked live through onSeeded)
    const seeds = [1, 2, 3, 4].map((id) => ({ id, url: `seed ${id}` }));
    resumed.resume({
      maxPriority: 1, seeds: () => seeds, history: () => history, queued: () => [...stored].map(([id, s]) => ({ id, url: s.url, priority: s.priority })),
    });
    for (const url of ['http://a.edu/x/z', 'http://a.edu/y/z', 'http://c.edu/']) expect(resumed.factorFor(url)).toBe(live.factorFor(url));
    for (const id of stored.keys()) expect(resumed.explain(id)!.base_priority).toBeCloseTo(live.explain(id)!.base_priority as number, 12);
    // the next move re-ranks both the same way
    const p = page(2, 'http://a.edu/x/2', 0, false);
    live.recorded(p, []);
    resumed.recorded(p, []);
    const a = live.takeUpdates();
    const b = resumed.takeUpdates();
    expect(b.map((u) => u.id)).toEqual(a.map((u) => u.id));
    b.forEach((u, i) => expect(u.priority).toBeCloseTo(a[i].priority, 12));
  });

  it('resume: a redirect\'s target is not re-ranked by its directory, live or replayed; a page\'s links are', () => {
    // live: a seed page P links to a and b (tracked by onLinksStored); R redirects to t, which is
    // queued at R's priority and never tracked; then two pages of t's directory are recorded
    const live = new DirectoryYield(3);
    const P = page(1, 'http://a.edu/', 0.9, true);
    const R = page(2, 'http://a.edu/old', null);
    live.track(10, 'http://a.edu/d/a.html', 0.8);
    live.track(11, 'http://a.edu/d/b.html', 0.7);
    live.recorded(P, [10, 11]);
    live.recorded(R, [12]); // t = 12, http://a.edu/d/t.html, priority 0.6
    const history: HistoryPage[] = [{ page: P, outlinks: [10, 11] }, { page: R, outlinks: [12] }];
    const queued = [
      { id: 10, url: 'http://a.edu/d/a.html', priority: 0.8 }, { id: 11, url: 'http://a.edu/d/b.html', priority: 0.7 },
      { id: 12, url: 'http://a.edu/d/t.html', priority: 0.6 },
    ];
    const resumed = new DirectoryYield(3);
    resumed.resume({ maxPriority: 1, seeds: () => [{ id: 1, url: P.url }], history: () => history, queued: () => queued });
    // two dead pages in /d/: the factor falls to 3/5 and the directory's waiting URLs are re-ranked
    for (const y of [live, resumed]) {
      y.recorded(page(20, 'http://a.edu/d/x.html', 0), []);
      y.recorded(page(21, 'http://a.edu/d/y.html', 0), []);
    }
    const a = live.takeUpdates();
    const b = resumed.takeUpdates();
    expect(a.map((u) => u.id).sort()).toEqual([10, 11]);
    expect(b.map((u) => u.id).sort()).toEqual([10, 11]);
    for (const u of b) expect(u.priority).toBeCloseTo(a.find((x) => x.id === u.id)!.priority, 12);
  });

  it('in a real crawl, a directory of dead links stops eating the budget after a few fetches', async () => {
    // the seed links (in this order) to 30 dead URLs in /dead/ whose URL looks on-topic, then to an
    // index page whose on-topic pages live in /good/
    const dir = join(tmp, 'corpus');
    const site = join(dir, 'site', 'www.a.test');
    mkdirSync(join(site, 'good'), { recursive: true });
    const dead = Array.from({ length: 30 }, (_, i) => `<a href="/dead/tobacco-${i}.html">tobacco ${i}</a>`).join(' ');
    writeFileSync(join(site, 'index.html'), `<html><head><title>tobacco</title></head><body><p>tobacco news ${dead} <a href="/hub.html">more tobacco</a></p></body></html>`);
    const good = Array.from({ length: 10 }, (_, i) => `<a href="/good/p${i}.html">tobacco story ${i}</a>`).join(' ');
    writeFileSync(join(site, 'hub.html'), `<html><head><title>tobacco hub</title></head><body><p>tobacco ${good}</p></body></html>`);
    for (let i = 0; i < 10; i++) writeFileSync(join(site, 'good', `p${i}.html`), `<html><head><title>tobacco leaf ${i}</title></head><body><p>tobacco farming and tobacco leaf.</p></body></html>`);
    writeFileSync(join(dir, 'corpus.json'), JSON.stringify({ name: 'dead', description: 'dead links', license: 'CC0-1.0', seeds: ['http://www.a.test/'], labels: { tobacco: 'on topic' } }));
    writeFileSync(join(dir, 'labels.tsv'), `url\tlabels\n${Array.from({ length: 10 }, (_, i) => `http://www.a.test/good/p${i}.html\ttobacco`).join('\n')}\n`);
    const topic = (feedback: number) => ({
      name: 'dead', seeds: ['http://www.a.test/'], keywords: { tobacco: 1 }, location: { tokens: { tobacco: 1 } },
      strategy: { name: 'best-first-fish', feedback }, limits: { max_pages: 20 }, politeness: { delay_ms: 0, concurrency: 1, per_host_concurrency: 1 },
    });
    const deadFetched = async (feedback: number) => {
      const { rows } = await crawlCorpus(dir, topic(feedback), join(tmp, `f${feedback}.db`));
      return rows.filter((r) => r.url.includes('/dead/')).length;
    };
    const without = await deadFetched(0);
    const withFeedback = await deadFetched(3);
    expect(without).toBeGreaterThanOrEqual(18); // every dead link outranks the hub and its pages
    expect(withFeedback).toBeLessThan(without / 2);
  });
});
