import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { TopicInput } from '../../src/topic/topic-schema.js';
import { crawlCorpus, repoRoot } from '../helpers/crawl-corpus.js';
import { tmpDir } from '../helpers/tmp.js';

/** Per-host politeness, shown from the server's own arrival timestamps. */
describe('politeness', () => {
  it('never hits a host faster than its delay (robots.txt included), while hosts are crawled in parallel', async () => {
    const tobacco = parse(readFileSync(join(repoRoot, 'topics/tobacco.yaml'), 'utf8')) as TopicInput;
    const delay = 150;
    const { requests, rows } = await crawlCorpus(
      join(repoRoot, 'corpora/tobacco-demo'),
      { ...tobacco, politeness: { ...tobacco.politeness, delay_ms: delay, concurrency: 8, per_host_concurrency: 1 }, limits: { max_pages: 60 } },
      join(tmpDir(), 'p.db'),
    );
    expect(rows).toHaveLength(60);
    const byHost = new Map<string, number[]>();
    for (const r of requests) byHost.set(r.host, [...(byHost.get(r.host) ?? []), r.receivedAt]);
    let gaps = 0;
    for (const times of byHost.values()) {
      times.sort((a, b) => a - b);
      for (let i = 1; i < times.length; i++, gaps++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(delay - 2);
    }
    expect(gaps).toBeGreaterThan(30);
    // that hosts are crawled in parallel (one host's delay does not hold the others) is the next test's,
    // shown by the order of requests, not by a bound on the crawl's duration, which load can break
  });

  it('one slow host does not slow the others', async () => {
    const { createServer } = await import('node:http');
    const hits: { host: string; at: number; end: number }[] = [];
    const server = createServer((req, res) => {
      const host = (req.headers.host ?? '').split(':')[0];
      const hit = { host, at: Date.now(), end: Infinity };
      hits.push(hit);
      const links = Array.from({ length: 10 }, (_, i) => `<a href="/p${i}">p${i}</a>`).join(' ');
      const send = () => {
        hit.end = Date.now();
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${host}</title>${req.url === '/' ? links : ''}`);
      };
      if (host === 'slow.test') setTimeout(send, 400);
      else send();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { Crawler } = await import('../../src/crawl/crawler.js');
    const { buildConfig } = await import('../../src/topic/config.js');
    const port = (server.address() as import('node:net').AddressInfo).port;
    try {
      const config = buildConfig({
        name: 'slow', seeds: ['http://slow.test/', 'http://fast.test/'], strategy: { name: 'breadth-first' },
        politeness: { delay_ms: 20, concurrency: 4, per_host_concurrency: 1, robots: false },
      });
      const crawler = new Crawler({ config, dbPath: join(tmpDir(), 's.db'), resolve: { 'slow.test': `127.0.0.1:${port}`, 'fast.test': `127.0.0.1:${port}` } });
      const t0 = Date.now();
      const summary = await crawler.run();
      await crawler.close();
      expect(summary.fetched).toBe(22);
      const span = (host: string) => {
        const at = hits.filter((h) => h.host === host).map((h) => h.at);
        return Math.max(...at) - Math.min(...at);
      };
      // 11 slow pages take ≥ 10 × 400 ms one after another (lower bounds: load cannot break them)
      expect(span('slow.test')).toBeGreaterThan(4000);
      expect(Date.now() - t0).toBeGreaterThan(4000);
      // the fast host goes on while the slow one keeps a request waiting: a crawler that waited for the
      // slow host would send no fast request while a slow one is open (on a quiet machine nearly all
      // of them are; how many depends on the load, so the test asks for the behaviour, not a share)
      const slow = hits.filter((h) => h.host === 'slow.test');
      const fast = hits.filter((h) => h.host === 'fast.test');
      const duringSlow = fast.filter((f) => slow.some((s) => s.at < f.at && f.at < s.end));
      expect(duringSlow.length).toBeGreaterThan(0);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
