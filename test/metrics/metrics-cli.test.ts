import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisConnection } from '../../src/frontier/redis-connection.js';
import { deleteCrawl } from '../../src/frontier/redis-crawl-keys.js';
import type { StatusJson } from '../../src/metrics/status-json.js';
import type { TopicInput } from '../../src/topic/topic-schema.js';
import { startCli } from '../helpers/cli-process.js';
import { scrapeMetrics, samples, valueOf } from '../helpers/exposition.js';
import { writeMetricsCorpus } from '../helpers/metrics-corpus.js';
import { REDIS_URL } from '../helpers/redis.js';
import { runCli } from '../helpers/run-cli.js';
import { suiteTmpDir, tmpDir } from '../helpers/tmp.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port this test holds (listening on 127.0.0.1), so it is in use for whoever else asks. */
async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { port: (server.address() as { port: number }).port, server };
}

describe('crawl --metrics-port', () => {
  const dir = suiteTmpDir();
  const corpus = join(dir, 'corpus');
  let topic: string;
  let slowTopic: string;

  beforeAll(() => {
    const { seed } = writeMetricsCorpus(corpus, { hosts: 3, pages: 10, missing: 1 });
    const base: TopicInput = { name: 'mcli', seeds: [seed], keywords: { tobacco: 2 }, scope: { hosts: ['*.metrics.test'] }, politeness: { delay_ms: 0, concurrency: 4 } };
    topic = join(dir, 'topic.yaml');
    writeFileSync(topic, stringify(base));
    // a crawl that lasts: each host's 14 pages at least 13 delays apart
    slowTopic = join(dir, 'slow.yaml');
    writeFileSync(slowTopic, stringify({ ...base, name: 'mslow', politeness: { delay_ms: 300, concurrency: 4 } }));
  });

  it('a port in use is one line naming it, E_USAGE, exit 2, before the crawl file is touched', async () => {
    const held = await holdPort();
    try {
      const db = join(tmpDir(), 'c.db');
      const r = await runCli(['crawl', topic, '--corpus', corpus, '--db', db, '--metrics-port', String(held.port)]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`topicrawl: cannot serve metrics on 127.0.0.1 port ${held.port}: the port is in use by another program (EADDRINUSE); choose another --metrics-port, or 0 for any free port [E_USAGE]\n`);
      expect(existsSync(db)).toBe(false);
    } finally {
      held.server.close();
    }
  });

  it('bad flags are usage errors', async () => {
    for (const [args, line] of [
      [['--metrics-port', '70000'], '--metrics-port 70000: expected a port number from 0 to 65535 (0: any free port)'],
      [['--metrics-host', '::1'], '--metrics-host goes with --metrics-port N'],
    ] as const) {
      const r = await runCli(['crawl', topic, '--corpus', corpus, '--db', join(tmpDir(), 'c.db'), ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`topicrawl: ${line} [E_USAGE]\n`);
    }
  });

  it('port 0: the address bound is told on stderr and in the summary, and served while the crawl runs', async () => {
    const db = join(tmpDir(), 'c.db');
    const json = await runCli(['crawl', topic, '--corpus', corpus, '--db', db, '--metrics-port', '0', '--json']);
    expect(json.code).toBe(0);
    const m = /^\[topicrawl\] metrics at (http:\/\/127\.0\.0\.1:(\d+)\/)metrics, live page at \1$/m.exec(json.stderr);
    expect(m).not.toBeNull();
    const out = JSON.parse(json.stdout) as { fetched: number; metrics: { host: string; port: number; url: string } };
    expect(out.metrics).toEqual({ host: '127.0.0.1', port: Number(m![2]), url: m![1] });
    expect(out.fetched).toBe(3 * (1 + 10 + 2 + 1));
    // the crawl over, the server is closed
    await expect(fetch(`${m![1]}metrics`)).rejects.toThrow();

    const text = await runCli(['crawl', topic, '--corpus', corpus, '--db', join(tmpDir(), 'd.db'), '--metrics-port', '0']);
    expect(text.code).toBe(0);
    const url = /metrics at (\S+)metrics,/.exec(text.stderr)![1];
    expect(text.stdout).toContain(`  metrics            ${url}metrics and ${url} (served while the crawl ran)`);
  });

  it('a crawl process serves /metrics, /status.json and the page while it runs (and 404, 405 for the rest)', async () => {
    const cli = startCli(['crawl', slowTopic, '--corpus', corpus, '--db', join(tmpDir(), 's.db'), '--metrics-port', '0', '--json'], { timeoutMs: 120_000 });
    try {
      await cli.waitFor(/metrics at \S+metrics/);
      const url = /live page at (\S+)/.exec(cli.stderr)![1];
      let s: StatusJson;
      while ((s = (await (await fetch(`${url}status.json`)).json()) as StatusJson).pagesThisRun < 3) await sleep(100);
      expect(s).toMatchObject({ topic: 'mslow', state: 'running', worker: null });
      const scrape = await scrapeMetrics(url);
      expect(scrape.problems).toEqual([]);
      expect(valueOf(scrape, 'topicrawl_crawl_info', { topic: 'mslow', strategy: 'learning' })).toBe(1);
      const page = await fetch(url);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await page.text()).toContain('<title>topicrawl live: mslow</title>');
      expect((await fetch(`${url}harvest.svg`)).headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
      expect((await fetch(`${url}nothing`)).status).toBe(404);
      expect((await fetch(`${url}metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      cli.child.kill('SIGINT');
      await cli.done;
    }
  });
});

describe('crawl --workers N --metrics-port (Redis)', () => {
  const dir = suiteTmpDir();
  const corpus = join(dir, 'corpus');
  let topic: string;
  let conn: RedisConnection;
  const ids: string[] = [];
  const crawlId = (name: string) => {
    const id = `${name}-${process.pid}-${Date.now().toString(36)}`;
    ids.push(id);
    return id;
  };

  beforeAll(async () => {
    const { seed } = writeMetricsCorpus(corpus, { hosts: 4, pages: 12, missing: 1 });
    topic = join(dir, 'topic.yaml');
    writeFileSync(topic, stringify({ name: 'mworkers', seeds: [seed], keywords: { tobacco: 2 }, scope: { hosts: ['*.metrics.test'] }, politeness: { delay_ms: 300, concurrency: 4 } } satisfies TopicInput));
    conn = await new RedisConnection(REDIS_URL).connect();
  });
  afterAll(async () => {
    for (const id of ids) await deleteCrawl(conn, id);
    await conn?.close();
  });

  it('each worker serves its own metrics, labelled worker="k", and the parent tells where', async () => {
    const cli = startCli(['crawl', topic, '--corpus', corpus, '--frontier', REDIS_URL, '--crawl-id', crawlId('mw'), '--workers', '2', '--db', join(tmpDir(), 'segs'), '--metrics-port', '0'], { timeoutMs: 180_000 });
    try {
      await cli.waitFor(/worker 1: metrics at \S+metrics[\s\S]*worker 2: metrics at|worker 2: metrics at \S+metrics[\s\S]*worker 1: metrics at/);
      const urls = [1, 2].map((k) => new RegExp(`worker ${k}: metrics at \\S+metrics, live page at (\\S+)`).exec(cli.stderr)![1]);
      expect(new Set(urls).size).toBe(2);
      for (const [i, url] of urls.entries()) {
        const k = String(i + 1);
        let s: StatusJson;
        while ((s = (await (await fetch(`${url}status.json`)).json()) as StatusJson).state === 'starting') await sleep(100);
        expect(s).toMatchObject({ worker: k, topic: 'mworkers' });
        const scrape = await scrapeMetrics(url);
        expect(scrape.problems).toEqual([]);
        const ours = [...scrape.families.values()].filter((f) => f.name.startsWith('topicrawl_')).flatMap((f) => f.samples);
        expect(ours.length).toBeGreaterThan(10);
        for (const x of ours) expect(x.labels.worker, x.name).toBe(k);
        expect(samples(scrape, 'process_cpu_seconds_total')[0].labels.worker).toBe(k);
      }
      const end = await cli.done;
      expect(end.code).toBe(0);
      for (const [i, url] of urls.entries()) expect(end.stdout).toMatch(new RegExp(`worker ${i + 1} .*metrics at ${url.replace(/[.]/g, '\\.')}metrics`));
    } finally {
      cli.child.kill('SIGINT');
      await cli.done;
    }
  });

  it('a worker whose port is in use stops the crawl with its own one line (E_USAGE)', async () => {
    const held = await holdPort();
    try {
      const cli = startCli(['crawl', topic, '--corpus', corpus, '--frontier', REDIS_URL, '--crawl-id', crawlId('mwp'), '--workers', '2', '--db', join(tmpDir(), 'segs'),
        '--metrics-port', String(held.port), '--max-pages', '4', '--set', 'politeness.delay_ms=0'], { timeoutMs: 180_000 });
      const end = await cli.done;
      expect(end.code).toBe(2);
      expect(end.stderr).toContain(`topicrawl: worker 1: cannot serve metrics on 127.0.0.1 port ${held.port}: the port is in use by another program (EADDRINUSE); choose another --metrics-port, or 0 for any free port [E_USAGE]\n`);
    } finally {
      held.server.close();
    }
  });
});
