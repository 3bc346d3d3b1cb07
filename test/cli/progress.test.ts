import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { attachProgress } from '../../src/cli/progress.js';
import type { Crawler } from '../../src/crawl/crawler.js';
import { TypedEmitter, type CrawlEvents, type ProgressSnapshot } from '../../src/events.js';

const snap = (over: Partial<ProgressSnapshot> = {}): ProgressSnapshot => ({
  fetched: 42, pagesPerSec: 12.5, frontier: 310, relevant: 30, harvest: 30 / 42, errors: 3, bytes: 1000, elapsedMs: 3000, discoveryRate: 2.25, pruned: 4, ...over,
});

function fakeStream(tty: boolean) {
  const s = new PassThrough() as PassThrough & { isTTY: boolean; columns: number; text: () => string };
  s.isTTY = tty;
  s.columns = 160;
  let out = '';
  s.on('data', (d) => (out += d));
  s.text = () => out;
  return s;
}

describe('progress display', () => {
  it('draws a live line on a terminal with pages, pages/s, frontier, harvest and errors', () => {
    const crawler = new TypedEmitter<CrawlEvents>();
    const stream = fakeStream(true);
    const stop = attachProgress(crawler as unknown as Crawler, { maxPages: 100, tty: true, stream: stream as unknown as NodeJS.WriteStream });
    crawler.emit('progress', snap());
    crawler.emit('progress', snap({ fetched: 50 }));
    stop();
    const text = stream.text();
    expect(text).toContain('50/100 pages');
    expect(text).toContain('12.5 p/s');
    expect(text).toContain('frontier 310');
    expect(text).toContain('harvest≈71.4%');
    expect(text).toContain('errors 3');
  });

  it('writes plain log lines, at most one per interval, when not on a terminal', () => {
    const crawler = new TypedEmitter<CrawlEvents>();
    const stream = fakeStream(false);
    const stop = attachProgress(crawler as unknown as Crawler, { maxPages: 100, tty: false, stream: stream as unknown as NodeJS.WriteStream, everyMs: 60_000 });
    crawler.emit('progress', snap());
    crawler.emit('progress', snap({ fetched: 43 }));
    crawler.emit('warn', { code: 'E_X', message: 'something odd', url: 'http://a.test/' });
    stop();
    crawler.emit('progress', snap({ fetched: 44 }));
    const lines = stream.text().trim().split('\n');
    expect(lines).toEqual([
      '[topicrawl] fetched=42 pages/s=12.5 frontier=310 harvest≈71.4% errors=3 new/page=2.25',
      '[topicrawl] warning E_X: something odd (http://a.test/)',
    ]);
  });
});
