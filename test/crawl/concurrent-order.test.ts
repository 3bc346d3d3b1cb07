import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TopicInput } from '../../src/topic/topic-schema.js';
import { crawlCorpus } from '../helpers/crawl-corpus.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * A concurrent crawl keeps best-first order: a hub links to 8 pages on one on-topic host (high
 * priority: their URLs carry the topic's location token) and to 8 poor pages on 8 other hosts.
 * With 4 requests in flight and one per host, a crawl that fills every free slot at once would
 * fetch 3 poor pages next to the first good one; the frontier instead waits for the good host.
 */
const GOOD = Array.from({ length: 8 }, (_, i) => `http://stars.test/astronomy-${i + 1}.html`);
const POOR = Array.from({ length: 8 }, (_, i) => `http://shop${i + 1}.test/travel-deals.html`);

function page(title: string, body: string, links: string[] = []): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>${body}</p><ul>${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join('')}</ul></body></html>`;
}

function writeCorpus(dir: string): void {
  const put = (u: string, html: string) => {
    const url = new URL(u);
    const file = join(dir, 'site', url.host, url.pathname === '/' ? 'index.html' : url.pathname.slice(1));
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, html);
  };
  // the hub lists the poor pages first: document order must not decide
  put('http://hub.test/', page('Astronomy links', 'astronomy telescope galaxy', [...POOR, ...GOOD]));
  GOOD.forEach((u, i) => put(u, page(`Astronomy ${i + 1}`, 'astronomy telescope galaxy nebula')));
  POOR.forEach((u) => put(u, page('Travel deals', 'cheap flights and hotels')));
  writeFileSync(join(dir, 'corpus.json'), JSON.stringify({ name: 'order', description: 'concurrent order', license: 'CC0-1.0', seeds: ['http://hub.test/'], labels: { astronomy: 'on topic' } }));
  writeFileSync(join(dir, 'labels.tsv'), `url\tlabels\n${['http://hub.test/', ...GOOD].map((u) => `${u}\tastronomy`).join('\n')}\n`);
}

function topic(concurrency: number): TopicInput {
  return {
    name: 'order-test',
    seeds: ['http://hub.test/'],
    keywords: { astronomy: 2, telescope: 1, galaxy: 1 },
    location: { tokens: { astronomy: 2, travel: -2 } },
    strategy: { name: 'best-first' },
    politeness: { delay_ms: 0, concurrency, per_host_concurrency: 1, robots: false },
    limits: { max_pages: 17 },
  };
}

describe('a concurrent crawl', () => {
  it('fetches the high-priority pages first, as a crawl with one request in flight does', async () => {
    const dir = tmpDir();
    writeCorpus(join(dir, 'corpus'));
    const serial = await crawlCorpus(join(dir, 'corpus'), topic(1), join(dir, 'serial.db'));
    const concurrent = await crawlCorpus(join(dir, 'corpus'), topic(4), join(dir, 'concurrent.db'));
    for (const run of [serial, concurrent]) expect(run.rows).toHaveLength(17);
    // one at a time: the hub, the 8 good pages, then the poor ones
    expect(serial.rows.slice(0, 9).map((r) => r.url)).toEqual(['http://hub.test/', ...GOOD]);
    // 4 at a time: a poor page may go only once fewer than 3 good pages wait behind the one in
    // flight, so the first 6 recorded are the hub and the best 5 good pages, in order
    expect(concurrent.rows.slice(0, 6).map((r) => r.url)).toEqual(['http://hub.test/', ...GOOD.slice(0, 5)]);
    // (after that, good pages and poor ones are in flight together, and timing decides which is recorded first)
    // priorities handed out: every good page ranks above every poor page
    const prio = new Map(concurrent.rows.map((r) => [r.url, r.priority]));
    expect(Math.min(...GOOD.map((u) => prio.get(u)!))).toBeGreaterThan(Math.max(...POOR.map((u) => prio.get(u)!)));
  });
});
