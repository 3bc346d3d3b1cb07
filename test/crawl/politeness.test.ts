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
    // several hosts in parallel: the whole crawl takes far less than pages × delay
    const all = requests.map((r) => r.receivedAt);
    expect(Math.max(...all) - Math.min(...all)).toBeLessThan(rows.length * delay * 0.6);
  });
});
