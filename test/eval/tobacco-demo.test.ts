import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relevantUrls } from '../../src/eval/corpus.js';
import { startCorpusServer, type CorpusServer } from '../../src/eval/corpus-server.js';
import { TopicSchema } from '../../src/topic/topic-schema.js';
import { readGraph, reachable, type CorpusGraph } from './corpus-graph.js';
import { hrefs, rawRequest } from './helpers.js';
import { fixturePath } from '../helpers/fixtures.js';

const DIR = 'corpora/tobacco-demo';
const fixture = JSON.parse(readFileSync(fixturePath('tobacco-graph.json'), 'utf8')) as {
  pages: { id: string; zh: string; url: string }[];
  links: Record<string, string[]>;
};
const urlOf = (id: string): string => fixture.pages.find((p) => p.id === id)!.url;
const hostOf = (u: string): string => new URL(u).host;
const isHome = (u: string): boolean => new URL(u).pathname === '/';

let g: CorpusGraph;
beforeAll(() => {
  g = readGraph(DIR);
});

describe('tobacco-demo corpus', () => {
  it('loads: meta, seed, label, license', () => {
    expect(g.corpus.meta.name).toBe('tobacco-demo');
    expect(g.corpus.meta.seeds).toEqual(['http://www.tobacco-info.example/']);
    expect(g.corpus.meta.license).toBe('CC0-1.0');
    expect(Object.keys(g.corpus.meta.labels)).toEqual(['tobacco']);
  });

  it('has the 11 fixture hosts plus 2–3 off-topic hosts with several pages each', () => {
    const fixtureHosts = fixture.pages.map((p) => hostOf(p.url));
    for (const h of fixtureHosts) expect(g.corpus.hosts).toContain(h);
    const extra = g.corpus.hosts.filter((h) => !fixtureHosts.includes(h));
    expect(extra.length).toBeGreaterThanOrEqual(2);
    expect(extra.length).toBeLessThanOrEqual(3);
    for (const h of extra) {
      const pages = g.pages.filter((p) => hostOf(p) === h);
      expect(pages.length, h).toBeGreaterThanOrEqual(5);
      expect(pages.filter((p) => g.corpus.labels.get(p)!.length === 0).length, h).toBeGreaterThanOrEqual(4);
    }
    for (const h of fixtureHosts) {
      const internal = g.pages.filter((p) => hostOf(p) === h && !isHome(p)).length;
      expect(internal, h).toBeGreaterThanOrEqual(6);
      expect(internal, h).toBeLessThanOrEqual(10);
    }
    expect(g.pages.length).toBeGreaterThanOrEqual(100);
    expect(g.pages.length).toBeLessThanOrEqual(150);
  });

  it('home pages link to other home pages exactly as the fixture says, first and in order', () => {
    for (const p of fixture.pages) {
      const html = readFileSync(join(DIR, 'site', hostOf(p.url), 'index.html'), 'utf8');
      const links = hrefs(html).map((h) => new URL(h, p.url).href);
      const want = fixture.links[p.id].map(urlOf);
      const homeTargets = links.filter((u) => isHome(u) && hostOf(u) !== hostOf(p.url));
      expect(homeTargets, p.id).toEqual(want);
      // nothing comes before the fixture links: internal links follow them
      expect(links.slice(0, want.length), p.id).toEqual(want);
      expect(links.slice(want.length).every((u) => hostOf(u) === hostOf(p.url)), p.id).toBe(true);
    }
  });

  it('no internal page links to another site’s home page; cross-site links are few', () => {
    let cross = 0;
    for (const [u, o] of g.out) {
      if (isHome(u)) continue;
      for (const v of o.all) {
        if (hostOf(v) === hostOf(u)) continue;
        expect(isHome(v), `${u} → ${v}`).toBe(false);
        expect(g.out.has(v), `${u} → ${v} (dead)`).toBe(true);
        cross++;
      }
    }
    expect(cross).toBeGreaterThanOrEqual(3);
    expect(cross).toBeLessThanOrEqual(15);
  });

  it('labels.tsv lists every page file and only those; 50–60% are relevant', () => {
    expect(new Set(g.corpus.labels.keys())).toEqual(new Set(g.pages));
    const share = relevantUrls(g.corpus, 'tobacco').size / g.pages.length;
    expect(share).toBeGreaterThanOrEqual(0.5);
    expect(share).toBeLessThanOrEqual(0.6);
    expect(g.corpus.labels.get('http://www.china-ecommerce.example/')).toEqual([]);
  });

  it('every page is reachable from the seed', () => {
    const r = reachable(g, g.corpus.meta.seeds);
    expect(g.pages.filter((p) => !r.has(p))).toEqual([]);
  });

  it('traditional-script sites write 煙草, simplified ones 烟草; a few pages are English', () => {
    for (const h of ['www.eastern-tobacco-news.example', 'www.tobacco-online.example']) {
      const html = readFileSync(join(DIR, 'site', h, 'index.html'), 'utf8');
      expect(html).toContain('煙草');
      expect(html).not.toMatch(/[烟菸]/);
      expect(html).toContain('lang="zh-Hant"');
    }
    expect(readFileSync(join(DIR, 'site/www.tobacco-info.example/index.html'), 'utf8')).toContain('烟草');
    const en = g.pages.filter((p) => readFileSync(fileOf(p), 'utf8').includes('<html lang="en">'));
    expect(en.length).toBeGreaterThanOrEqual(3);
  });

  it('robots.txt on two hosts disallows a path (not the home page) that exists', () => {
    const withRobots = g.corpus.hosts.filter((h) => existsSync(join(DIR, 'site', h, 'robots.txt')));
    expect(withRobots.length).toBe(2);
    for (const h of withRobots) {
      const m = /^Disallow: (\/\S+)$/m.exec(readFileSync(join(DIR, 'site', h, 'robots.txt'), 'utf8'));
      expect(m, h).not.toBeNull();
      expect(g.pages.some((p) => hostOf(p) === h && new URL(p).pathname.startsWith(m![1]))).toBe(true);
    }
  });

  it('topics/tobacco.yaml validates and fits the corpus', () => {
    const t = TopicSchema.parse(parseYaml(readFileSync('topics/tobacco.yaml', 'utf8')));
    expect(t.seeds).toEqual(g.corpus.meta.seeds);
    expect(t.evaluation.label).toBe('tobacco');
    expect(t.strategy).toMatchObject({ name: 'learning', max_life: 3 });
    expect(t.politeness.delay_ms).toBe(1000);
    expect(t.limits.max_pages).toBe(500);
    for (const k of ['烟草', '煙草', '卷烟', '捲煙', '烟叶', '煙葉', '烤烟', '烤煙', '雪茄', '控烟', '控煙', 'tobacco', 'cigarette', 'nicotine']) {
      expect(t.keywords[k], k).toBeGreaterThan(0);
    }
    expect(Object.values(t.keywords).some((w) => w < 0)).toBe(true);
    expect(t.location.tokens.tobacco).toBeGreaterThan(0);
    expect(t.location.tokens.yancao).toBeGreaterThan(0);
    expect(t.location.tokens.index).toBeGreaterThan(0);
    expect(t.location.tokens.travel).toBeLessThan(0);
    expect(t.location.tokens.life).toBeLessThan(0);
    expect(t.scope.hosts).toEqual(['*.example']);
  });
});

describe('tobacco-demo served', () => {
  let server: CorpusServer;
  beforeAll(async () => {
    server = await startCorpusServer(DIR);
  });
  afterAll(() => server.close());

  it('serves every page in labels.tsv with 200 and HTML, including a UTF-8 path', async () => {
    for (const u of g.corpus.labels.keys()) {
      const url = new URL(u);
      const r = await rawRequest(server.port, url.pathname, url.host);
      expect(r.status, u).toBe(200);
      expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    }
    const r = await rawRequest(server.port, '/' + encodeURIComponent('资讯') + '/' + encodeURIComponent('烤烟采收') + '.html', 'www.yunnan-leaf.example');
    expect(r.body).toContain('烤烟成熟采收要点');
    expect(server.hosts).toEqual(g.corpus.hosts);
  });
});

function fileOf(u: string): string {
  const url = new URL(u);
  const path = decodeURIComponent(url.pathname);
  return join(DIR, 'site', url.host, path.endsWith('/') ? `${path}index.html` : path);
}
