import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alternate, crawlOrderPages, median, outputDigest, type AbPage } from '../../scripts/analysis-ab.js';

let corpus: string;
beforeAll(() => {
  corpus = mkdtempSync(join(tmpdir(), 'analysis-ab-'));
  // three hosts with 3, 1 and 2 pages, one page in a sub-folder, one file that is not HTML
  const files: Record<string, string> = {
    'b.test/2.html': 'b2', 'b.test/1.html': 'b1', 'b.test/sub/3.html': 'b3',
    'a.test/1.html': 'a1',
    'c.test/1.html': 'c1', 'c.test/2.html': 'c2', 'c.test/notes.txt': 'x',
  };
  for (const [path, body] of Object.entries(files)) {
    mkdirSync(join(corpus, 'site', path, '..'), { recursive: true });
    writeFileSync(join(corpus, 'site', path), body);
  }
});
afterAll(() => rmSync(corpus, { recursive: true, force: true }));

describe('crawlOrderPages', () => {
  it('takes the hosts in turn, each host its pages in path order, HTML only', () => {
    const urls = crawlOrderPages(corpus, 100).map((p) => p.url);
    expect(urls).toEqual([
      'http://a.test/1.html', 'http://b.test/1.html', 'http://c.test/1.html',
      'http://b.test/2.html', 'http://c.test/2.html',
      'http://b.test/sub/3.html',
    ]);
  });

  it('stops at n, and gives each page its host and body', () => {
    const pages = crawlOrderPages(corpus, 4);
    expect(pages.map((p) => p.url)).toEqual(['http://a.test/1.html', 'http://b.test/1.html', 'http://c.test/1.html', 'http://b.test/2.html']);
    expect(pages[3].host).toBe('b.test');
    expect(Buffer.from(pages[3].body).toString()).toBe('b2');
  });

  it('refuses a corpus without HTML pages', () => {
    const empty = mkdtempSync(join(tmpdir(), 'analysis-ab-empty-'));
    mkdirSync(join(empty, 'site'));
    try {
      expect(() => crawlOrderPages(empty, 5)).toThrow(/no \.html page/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('outputDigest', () => {
  it('tells outputs apart by any value, byte arrays by their bytes', () => {
    const out = { links: [{ url: 'http://a/', score: 0.5 }], body: new Uint8Array([1, 2, 3]) };
    expect(outputDigest(out)).toBe(outputDigest({ links: [{ url: 'http://a/', score: 0.5 }], body: new Uint8Array([1, 2, 3]) }));
    expect(outputDigest(out)).not.toBe(outputDigest({ ...out, body: new Uint8Array([1, 2, 4]) }));
    expect(outputDigest(out)).not.toBe(outputDigest({ ...out, links: [{ url: 'http://a/', score: 0.25 }] }));
  });
});

describe('median', () => {
  it('is the middle value, or the mean of the two middle ones', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});

describe('alternate', () => {
  const page = (i: number): AbPage => ({ url: `http://h/${i}`, host: 'h', body: new Uint8Array([i]), contentType: 'text/html', html: true, anchors: [] });
  const rounds = [[page(0), page(1)], [page(2), page(3)], [page(4), page(5)], [page(6), page(7)]];

  it('gives each side every round\'s own pages, sides alternating, and measures after the warm-up', () => {
    const calls: string[] = [];
    let clock = 0;
    // base costs 10 a page, new 4: the fake clock advances by the cost of each call
    const base = (p: AbPage) => ((clock += 10), calls.push(`base ${p.url}`), p.body[0]);
    const next = (p: AbPage) => ((clock += 4), calls.push(`new ${p.url}`), p.body[0]);
    const r = alternate(rounds, base, next, 1, () => clock);
    expect(calls.slice(0, 4)).toEqual(['base http://h/0', 'base http://h/1', 'new http://h/0', 'new http://h/1']);
    expect(calls.slice(4, 8)).toEqual(['new http://h/2', 'new http://h/3', 'base http://h/2', 'base http://h/3']);
    expect(calls).toHaveLength(16);
    expect(r.base).toEqual([10, 10, 10]);
    expect(r.next).toEqual([4, 4, 4]);
    expect(r.firstDifference).toBeNull();
  });

  it('names the first page whose outputs differ during the warm-up', () => {
    const base = (p: AbPage) => ({ v: p.body[0] });
    const next = (p: AbPage) => ({ v: p.body[0] === 3 ? -1 : p.body[0] });
    expect(alternate(rounds, base, next, 2).firstDifference?.url).toBe('http://h/3');
    expect(alternate(rounds, base, next, 1).firstDifference).toBeNull(); // page 3 is measured, not compared
  });

  it('hands each call its own copy of the body', () => {
    const seen: Uint8Array[] = [];
    const take = (p: AbPage) => {
      seen.push(p.body);
      p.body.fill(0); // an analysis that consumes its body
      return 0;
    };
    alternate([[page(7)]], take, take, 1);
    expect(seen).toHaveLength(2);
    expect(seen[0]).not.toBe(seen[1]);
    expect(rounds[3][1].body[0]).toBe(7);
  });
});
