import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCdxjLine } from '../../src/warc/warc-originals.js';
import { runCliProcess } from '../helpers/cli-process.js';
import { testCrawl, REDIS_URL } from '../helpers/redis.js';
import { tmpDir } from '../helpers/tmp.js';
import { head, startRawServer, type RawServer } from './raw-http-server.js';
import { gzipMembers, readWarc, sha256Base32, warcioCdxj, type ReadRecord } from './read-warc.js';

const HOST = 'workers.test';
const PAGES = 40;
const page = (i: number) => {
  const links = Array.from({ length: 4 }, (_, k) => `<a href="/p/${(i * 4 + k + 1) % PAGES}">p</a>`).join(' ');
  return Buffer.from(`<html><head><title>tobacco ${i}</title></head><body><p>tobacco page ${i}</p>${links}</body></html>`);
};

/** A shared crawl's workers each write their own WARC files into one folder: named by worker, never colliding. */
describe('WARC output of a shared crawl (--workers 2, Redis)', () => {
  let server: RawServer;
  beforeAll(async () => {
    server = await startRawServer((path) => {
      const i = path === '/' ? 0 : Number(path.split('/')[2]);
      if (!Number.isInteger(i) || i >= PAGES) return { head: head('404 Not Found', [['Content-Length', '0']]), parts: [] };
      const b = page(i);
      return { head: head('200 OK', [['Content-Type', 'text/html'], ['Content-Length', String(b.length)]]), parts: [b] };
    });
  });
  afterAll(async () => server?.close());

  it('two workers, two sets of files, every page once, every record readable and its digests right', async () => {
    const { crawlId } = testCrawl('warc');
    const dir = tmpDir();
    const topic = join(dir, 't.yaml');
    writeFileSync(topic, ['name: warc-workers', `seeds: ["http://${HOST}/"]`, 'keywords: {tobacco: 1}', 'strategy: {name: breadth-first}', 'politeness: {delay_ms: 0, concurrency: 2, robots: false}', ''].join('\n'));
    const warc = join(dir, 'warc');
    const r = await runCliProcess(
      ['crawl', topic, '--frontier', REDIS_URL, '--crawl-id', crawlId, '--workers', '2', '--db', join(dir, 'segs'), '--mapped-only', '--resolve', `${HOST}=127.0.0.1:${server.port}`, '--warc', warc, '--json'],
      { timeoutMs: 240_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const files = readdirSync(warc).filter((f) => f.endsWith('.warc.gz')).sort();
    const byWorker = new Map<string, string[]>();
    for (const f of files) {
      const m = new RegExp(`^${crawlId}-\\d{17}-(worker-\\d)-\\d{5}\\.warc\\.gz$`).exec(f);
      expect(m, f).not.toBeNull();
      byWorker.set(m![1], [...(byWorker.get(m![1]) ?? []), f]);
    }
    expect([...byWorker.keys()].sort()).toEqual(['worker-1', 'worker-2']);
    const all: ReadRecord[] = [];
    for (const f of files) {
      const recs = await readWarc(join(warc, f));
      expect(gzipMembers(join(warc, f))).toEqual(recs.map((x) => x.offset));
      const cdx = readFileSync(join(warc, f.replace(/\.warc\.gz$/, '.cdxj')), 'utf8').split('\n').filter(Boolean).map((l) => parseCdxjLine(l)!);
      expect(cdx.map((c) => Number(c.offset))).toEqual(recs.filter((x) => x.type === 'response').map((x) => x.offset));
      expect(readFileSync(join(warc, f.replace(/\.warc\.gz$/, '.cdxj')), 'utf8').split(/(?<=\n)/).filter(Boolean)).toEqual(await warcioCdxj(join(warc, f)));
      all.push(...recs);
    }
    const responses = all.filter((x) => x.type === 'response');
    const urls = responses.map((x) => x.headers.get('warc-target-uri'));
    expect(new Set(urls).size).toBe(urls.length); // no page twice (no lease expired here)
    expect(urls.length).toBe(PAGES + 1); // the index / and /p/0 … /p/39
    for (const x of all) if (x.type !== 'warcinfo') expect(sha256Base32(x.block)).toBe(x.headers.get('warc-block-digest'));
    expect(all.filter((x) => x.type === 'metadata')).toHaveLength(PAGES + 1);
    // export of the segments: one writer per segment, named as the crawl named its files (worker-1, …)
    const out = join(dir, 'exported');
    const e = await runCliProcess(['export', join(dir, 'segs'), '--format', 'warc', '--out', out], { timeoutMs: 120_000 });
    expect(e.code, e.stderr).toBe(0);
    const exported = readdirSync(out).filter((f) => f.endsWith('.warc.gz')).map((f) => new RegExp(`^${crawlId}-\\d{17}-(worker-\\d)-export-\\d{5}\\.warc\\.gz$`).exec(f)?.[1] ?? f);
    expect(exported.sort()).toEqual(['worker-1', 'worker-2']);
  }, 300_000);
});
