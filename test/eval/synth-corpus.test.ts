import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSynthCorpus, type SynthSummary } from '../../src/eval/synth-corpus.js';
import { relevantUrls } from '../../src/eval/corpus.js';
import { TopicrawlError } from '../../src/errors.js';
import { TopicSchema } from '../../src/topic/topic-schema.js';
import { readGraph, reachable, type CorpusGraph } from './corpus-graph.js';

const tmp = mkdtempSync(join(tmpdir(), 'topicrawl-synth-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function treeHash(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(dir, p), createHash('sha256').update(readFileSync(p)).digest('hex'));
    }
  };
  walk(dir);
  return out;
}

describe('synthetic corpus at its default size', () => {
  let s: SynthSummary;
  let g: CorpusGraph;
  beforeAll(() => {
    s = generateSynthCorpus(join(tmp, 'full'), { seed: 1 });
    g = readGraph(join(tmp, 'full'));
  });

  it('has ≥5,000 pages on ≥50 hosts, and labels.tsv lists exactly the pages', () => {
    expect(s.pages).toBeGreaterThanOrEqual(5000);
    expect(s.pages).toBeLessThanOrEqual(6000);
    expect(g.pages.length).toBe(s.pages);
    expect(s.hosts).toBe(60);
    expect(g.corpus.hosts.length).toBe(60);
    expect(new Set(g.pages)).toEqual(new Set(g.corpus.labels.keys()));
  });

  it('has ≥5 labelled topics (English and Chinese) and ≥30% unlabelled pages', () => {
    const labels = Object.keys(g.corpus.meta.labels);
    expect(labels.length).toBeGreaterThanOrEqual(5);
    for (const l of labels) expect(relevantUrls(g.corpus, l).size).toBeGreaterThan(200);
    const none = [...g.corpus.labels.values()].filter((ls) => ls.length === 0).length;
    expect(none / g.pages.length).toBeGreaterThanOrEqual(0.3);
    const langOf = (label: string): Set<string> => {
      const langs = new Set<string>();
      for (const u of relevantUrls(g.corpus, label)) {
        const html = readFileSync(urlToFile(join(tmp, 'full'), u), 'utf8');
        langs.add(/<html lang="([^"]+)"/.exec(html)![1]);
      }
      return langs;
    };
    expect(langOf('astronomy')).toEqual(new Set(['en']));
    expect(langOf('tobacco')).toEqual(new Set(['zh-CN']));
  });

  it('pages are 4–20 KB of complete HTML with the same navigation on every page of a host', () => {
    for (const [u, n] of g.sizes) {
      expect(n, u).toBeGreaterThanOrEqual(4000);
      expect(n, u).toBeLessThanOrEqual(20 * 1024);
    }
    const host = g.corpus.hosts.find((h) => !h.includes('webdir') && !h.includes('daohang'))!;
    const navs = new Set<string>();
    for (const u of g.pages.filter((p) => new URL(p).host === host)) {
      const html = readFileSync(urlToFile(join(tmp, 'full'), u), 'utf8');
      expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
      expect(html).toContain('<meta charset="utf-8">');
      navs.add(/<nav>[\s\S]*?<\/nav>/.exec(html)![0] + /<footer>[\s\S]*?<\/footer>/.exec(html)![0]);
    }
    expect(navs.size).toBe(1);
  });

  it('links show topical locality: most in-content links of on-topic pages stay on the topic', () => {
    let same = 0;
    let total = 0;
    for (const [u, o] of g.out) {
      const l = g.corpus.labels.get(u)!;
      if (l.length === 0) continue;
      for (const v of o.main) {
        const lv = g.corpus.labels.get(v);
        if (lv === undefined) continue; // dead link
        total++;
        if (lv.includes(l[0])) same++;
      }
    }
    const share = same / total;
    expect(total).toBeGreaterThan(10_000);
    expect(share).toBeGreaterThan(0.7);
    expect(share).toBeLessThan(0.92); // not perfectly separated: there are links across topics
  });

  it('has hubs, bridge links across topics and a few dead links', () => {
    const outdeg = [...g.out.values()].map((o) => o.main.length).sort((a, b) => b - a);
    expect(outdeg[Math.floor(outdeg.length * 0.02)]).toBeGreaterThanOrEqual(25);
    const dead = [...g.out.values()].reduce((n, o) => n + o.all.filter((v) => !g.out.has(v)).length, 0);
    expect(dead).toBeGreaterThan(0);
    expect(dead).toBeLessThan(s.links * 0.02);
    // an unlabelled page linking to ≥3 different labels is a bridge
    const bridges = [...g.out].filter(([u, o]) => g.corpus.labels.get(u)!.length === 0 && new Set(o.main.flatMap((v) => g.corpus.labels.get(v) ?? [])).size >= 3);
    expect(bridges.length).toBeGreaterThan(20);
  });

  it('every page is reachable from the seeds', () => {
    const seeds = g.corpus.meta.seeds;
    expect(seeds.length).toBeGreaterThanOrEqual(2);
    const r = reachable(g, seeds);
    const missing = g.pages.filter((p) => !r.has(p));
    expect(missing).toEqual([]);
  });

  it('writes robots.txt on some hosts, disallowing a path prefix that exists', () => {
    expect(s.robotsHosts.length).toBeGreaterThanOrEqual(3);
    for (const h of s.robotsHosts) {
      const txt = readFileSync(join(tmp, 'full', 'site', h, 'robots.txt'), 'utf8');
      expect(txt).toMatch(/^User-agent: \*\nDisallow: \/members\/$/m);
      expect(g.out.has(`http://${h}/members/`)).toBe(true);
    }
  });

  it('the synthetic topic files validate and point at this corpus', () => {
    const files = readdirSync('topics').filter((f) => /^synth-.+\.yaml$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(5);
    const labels = new Set<string>();
    for (const f of files) {
      const topic = TopicSchema.parse(parseYaml(readFileSync(join('topics', f), 'utf8')));
      expect(topic.evaluation.label).toBeDefined();
      labels.add(topic.evaluation.label!);
      expect(Object.hasOwn(g.corpus.meta.labels, topic.evaluation.label!)).toBe(true);
      for (const seed of topic.seeds) expect(g.out.has(seed), seed).toBe(true);
      for (const h of g.corpus.hosts) expect(topic.scope.hosts.some((p) => p === '*.test') && h.endsWith('.test')).toBe(true);
      expect(Object.keys(topic.keywords).length).toBeGreaterThanOrEqual(10);
    }
    expect(labels).toEqual(new Set(Object.keys(g.corpus.meta.labels)));
  });
});

describe('synthetic corpus generator', () => {
  it('is deterministic: same seed → byte-identical tree, other seed → different', () => {
    const a = generateSynthCorpus(join(tmp, 'a'), { seed: 7, pages: 800, hosts: 14 });
    const b = generateSynthCorpus(join(tmp, 'b'), { seed: 7, pages: 800, hosts: 14 });
    const c = generateSynthCorpus(join(tmp, 'c'), { seed: 8, pages: 800, hosts: 14 });
    expect(a.pages).toBe(b.pages);
    const ha = treeHash(join(tmp, 'a'));
    expect(ha.size).toBe(a.pages + a.robotsHosts.length + 2);
    expect(treeHash(join(tmp, 'b'))).toEqual(ha);
    expect(treeHash(join(tmp, 'c'))).not.toEqual(ha);
    expect(c.seeds).toEqual(a.seeds); // the portals, hence the topic files' seeds, are stable
  });

  it('small corpora are still complete and reachable', () => {
    const s = generateSynthCorpus(join(tmp, 'small'), { seed: 3, pages: 500, hosts: 12 });
    const g = readGraph(join(tmp, 'small'));
    expect(g.pages.length).toBe(s.pages);
    expect(s.pages).toBeGreaterThan(450);
    expect(reachable(g, g.corpus.meta.seeds).size).toBe(g.pages.length);
    for (const n of Object.values(s.labelled)) expect(n).toBeGreaterThan(0);
  });

  it('replaces an existing corpus but refuses a folder that holds something else', () => {
    const dir = join(tmp, 'again');
    generateSynthCorpus(dir, { seed: 1, pages: 500, hosts: 12 });
    const s = generateSynthCorpus(dir, { seed: 2, pages: 500, hosts: 12 });
    expect(readGraph(dir).pages.length).toBe(s.pages);
    const other = join(tmp, 'other');
    generateSynthCorpus(join(other), { seed: 1, pages: 500, hosts: 12 });
    rmSync(join(other, 'corpus.json'));
    writeFileSync(join(other, 'notes.txt'), 'mine');
    expect(() => generateSynthCorpus(other, { seed: 1, pages: 500, hosts: 12 })).toThrow(TopicrawlError);
    expect(existsSync(join(other, 'notes.txt'))).toBe(true);
  });

  it('rejects too few pages or hosts with E_USAGE', () => {
    for (const o of [{ seed: 1, pages: 100, hosts: 12 }, { seed: 1, pages: 5000, hosts: 5 }, { seed: 1.5 }]) {
      try {
        generateSynthCorpus(join(tmp, 'bad'), o);
        expect.unreachable();
      } catch (err) {
        expect((err as TopicrawlError).code).toBe('E_USAGE');
      }
    }
  });
});

function urlToFile(dir: string, url: string): string {
  const u = new URL(url);
  const path = decodeURIComponent(u.pathname);
  return join(dir, 'site', u.host, path.endsWith('/') ? `${path}index.html` : path);
}
