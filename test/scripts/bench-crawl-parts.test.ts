import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCorpusServer } from '../../src/eval/corpus-server.js';
import { bareLoop, coldBareLoop } from '../../scripts/bench-bare-loop.js';
import { NGINX, startBenchServer } from '../../scripts/bench-server.js';

const root = new URL('../../', import.meta.url).pathname;
let dir: string;
const HOSTS = ['a.test', 'b.test', 'c.test'];

/** a.test links to b.test, to a folder without its slash (a 301), to a missing page, outside the corpus, and to itself with a fragment. */
function writeCorpus(d: string): void {
  const page = (body: string) => `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;
  const files: Record<string, string> = {
    'a.test/index.html': page('<a href="http://b.test/">b</a> <a href="/docs">docs</a> <a href="/missing.html">gone</a> <a href="http://elsewhere.example/">out</a> <a href="#top">self</a> <a href="/#x">self again</a>'),
    'a.test/docs/index.html': page('<a href="one.html">one</a><template><a href="/in-template.html">t</a></template>'),
    'a.test/docs/one.html': page('<a href="http://c.test/deep/page.html">c</a>'),
    'a.test/in-template.html': page('template link'),
    'b.test/index.html': page('<a href="http://a.test/">back</a> <a href="robots.txt">robots</a>'),
    'b.test/robots.txt': 'User-agent: *\nDisallow:\n',
    'c.test/deep/page.html': page('<a href="../index.html">up</a>'),
    'c.test/index.html': page('end'),
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(d, 'site', rel, '..'), { recursive: true });
    writeFileSync(join(d, 'site', rel), text);
  }
  writeFileSync(join(d, 'corpus.json'), JSON.stringify({ name: 'bench-parts', description: 'test', license: 'CC0-1.0', seeds: ['http://a.test/'], labels: {} }));
  writeFileSync(join(d, 'labels.tsv'), 'url\tlabels\n');
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bench-parts-'));
  writeCorpus(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bench-bare-loop', () => {
  it('fetches every corpus URL it finds once (redirects and 404s count as pages), never a host outside the corpus', async () => {
    const seen: string[] = [];
    const server = await startCorpusServer(dir, { onRequest: (r) => seen.push(`${r.host}${r.path} ${r.status}`) });
    try {
      const r = await bareLoop({ seeds: ['http://a.test/'], hosts: new Set(HOSTS), port: server.port, inFlight: 4, maxPages: 100 });
      expect(seen.sort()).toEqual([
        'a.test/ 200', 'a.test/docs 301', 'a.test/docs/ 200', 'a.test/docs/one.html 200', 'a.test/in-template.html 200', 'a.test/missing.html 404',
        'b.test/ 200', 'b.test/robots.txt 200', 'c.test/deep/page.html 200', 'c.test/index.html 200',
      ]);
      expect(r.pages).toBe(10);
      expect(r.seen).toBe(10);
      expect(r.pagesPerSec).toBeGreaterThan(0);
      // the loop's CPU (its process's, while it ran): some, and a number
      expect(r.cpuMs).toBeGreaterThan(0);
      expect(Number.isFinite(r.cpuMs)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it("gives each host a connection of its own with perHostConnections, where the shared pool mixes hosts on a connection", async () => {
    // every page links to two more on its host and to the other hosts' first pages
    const hostsBySocket = new Map<number, Set<string>>();
    const server = createServer((req, res) => {
      const host = String(req.headers.host);
      const port = req.socket.remotePort!;
      if (!hostsBySocket.has(port)) hostsBySocket.set(port, new Set());
      hostsBySocket.get(port)!.add(host);
      const links = ['/p1', '/p2', ...HOSTS.map((h) => `http://${h}/`)].map((h) => `<a href="${h}">x</a>`).join('');
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${links}</body></html>`);
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const port = (server.address() as AddressInfo).port;
    try {
      const perHost = await bareLoop({ seeds: ['http://a.test/'], hosts: new Set(HOSTS), port, inFlight: 2, maxPages: 100, perHostConnections: true });
      expect(perHost.pages).toBe(9); // 3 hosts × (/, /p1, /p2)
      const perHostSockets = [...hostsBySocket.values()];
      expect(perHostSockets.every((hosts) => hosts.size === 1)).toBe(true);
      expect(perHostSockets.flatMap((hosts) => [...hosts]).sort()).toEqual(HOSTS);
      hostsBySocket.clear();
      const shared = await bareLoop({ seeds: ['http://a.test/'], hosts: new Set(HOSTS), port, inFlight: 2, maxPages: 100 });
      expect(shared.pages).toBe(9);
      expect(hostsBySocket.size).toBeLessThanOrEqual(2);
      expect([...hostsBySocket.values()].some((hosts) => hosts.size > 1)).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    }
  });

  it('stops at maxPages', async () => {
    const server = await startCorpusServer(dir);
    try {
      const r = await bareLoop({ seeds: ['http://a.test/'], hosts: new Set(HOSTS), port: server.port, inFlight: 2, maxPages: 3 });
      expect(r.pages).toBe(3);
    } finally {
      await server.close();
    }
  });

  it('runs in a process of its own (coldBareLoop) with the same result', async () => {
    const seen: string[] = [];
    const server = await startCorpusServer(dir, { onRequest: (r) => seen.push(`${r.host}${r.path}`) });
    try {
      const r = await coldBareLoop({ seeds: ['http://a.test/'], hosts: new Set(HOSTS), port: server.port, inFlight: 4, maxPages: 100 });
      expect(r.pages).toBe(10);
      expect(r.seen).toBe(10);
      expect(seen).toHaveLength(10);
      expect(r.pagesPerSec).toBeGreaterThan(0);
      expect(r.cpuMs).toBeGreaterThan(0); // (through the JSON it printed)
      // a run that fails in its process (nothing listens on port 1) is an error, not a figure
      await expect(coldBareLoop({ seeds: ['http://a.test/'], hosts: new Set(HOSTS), port: 1, inFlight: 1, maxPages: 1 })).rejects.toThrow(/exited/);
    } finally {
      await server.close();
    }
  }, 30_000);
});

describe('bench-server', () => {
  const answers = async (port: number) => {
    const out: string[] = [];
    for (const [host, path] of [['a.test', '/'], ['a.test', '/docs'], ['a.test', '/docs?q=1'], ['a.test', '/docs/'], ['a.test', '/missing.html'], ['c.test', '/deep'], ['c.test', '/deep/'], ['b.test', '/robots.txt'], ['nowhere.test', '/']]) {
      const res = await request(`http://127.0.0.1:${port}${path}`, { headers: { host } });
      const body = await res.body.text();
      const type = String(res.headers['content-type'] ?? '');
      out.push(`${host}${path} ${res.statusCode} ${res.statusCode === 200 ? type : ''} ${res.headers.location ?? ''} ${res.statusCode === 200 ? body.length : ''}`);
    }
    return out;
  };

  it.skipIf(!existsSync(NGINX))('nginx answers as the corpus server does (status, type, redirect, body) and logs each request in its window', async () => {
    const reference = await startCorpusServer(dir);
    const expected = await answers(reference.port).finally(() => reference.close());
    const server = await startBenchServer(dir);
    try {
      expect(server.kind).toBe('nginx');
      const t0 = Date.now();
      expect(await answers(server.port)).toEqual(expected);
      const w = await server.window();
      expect(w.count).toBe(expected.length);
      expect(w.first).toBeGreaterThanOrEqual(t0 - 1);
      expect(w.last).toBeGreaterThanOrEqual(w.first);
      expect((await server.window()).count).toBe(0);
      if (existsSync('/proc/self/stat')) expect(server.cpuMs()).toBeGreaterThanOrEqual(0); // (nginx's master and worker)
      // an absolute-form request (a peer using it as its HTTP proxy) is served by its host
      const client = new Client(`http://127.0.0.1:${server.port}`);
      const res = await client.request({ path: 'http://c.test/deep/page.html', method: 'GET' }).finally(() => client.close());
      expect(res.statusCode).toBe(200);
      expect(await res.body.text()).toContain('../index.html');
    } finally {
      await server.stop();
    }
  });

  it('falls back to the corpus server in its own process (BENCH_SERVER=corpus), with the same window', async () => {
    process.env.BENCH_SERVER = 'corpus';
    const server = await startBenchServer(dir).finally(() => delete process.env.BENCH_SERVER);
    try {
      expect(server.kind).toBe('corpus-server');
      const got = await answers(server.port);
      expect(got[0]).toMatch(/^a\.test\/ 200 text\/html; charset=utf-8 +\d+$/);
      expect(got[1]).toMatch(/^a\.test\/docs 301 +\/docs\/ *$/);
      const w = await server.window();
      expect(w.count).toBe(got.length);
      expect(w.last).toBeGreaterThanOrEqual(w.first);
      // its own process's CPU, its start through tsx included
      if (existsSync('/proc/self/stat')) expect(server.cpuMs()).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
  });
});

describe('bench-probe', () => {
  it('counts every statement execution and exec of the main thread, and writes the resource usage at exit', () => {
    const out = join(dir, 'probe.jsonl');
    const script = `
      const Database = require(${JSON.stringify(join(root, 'node_modules/better-sqlite3'))});
      const db = new Database(':memory:');
      db.exec('CREATE TABLE t (x)');
      const ins = db.prepare('INSERT INTO t VALUES (?)');
      db.transaction(() => { for (let i = 0; i < 5; i++) ins.run(i); })();
      db.prepare('SELECT count(*) FROM t').get();
      db.prepare('SELECT x FROM t').all();
      for (const r of db.prepare('SELECT x FROM t').iterate()) void r;
      db.pragma('user_version');
    `;
    const r = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, BENCH_PROBE_OUT: out, NODE_OPTIONS: `--import ${join(root, 'scripts/bench-probe.mjs')}` }, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    // run: 5 inserts + BEGIN + COMMIT; get: the count; all: the select + the pragma; iterate: 1; exec: 1
    expect(lines[0].sqlite).toEqual({ run: 7, get: 1, all: 2, iterate: 1, exec: 1 });
    expect(lines[0].thread).toBe('main');
    expect(lines[0].usage.maxRSS).toBeGreaterThan(0);
    expect(lines[0].usage.userCPUTime).toBeGreaterThan(0);
  });

  it.skipIf(!existsSync('/proc/self/task'))('splits the process\'s CPU by thread: a thread that ended before exit counts as ended, not as main', () => {
    const out = join(dir, 'threads.jsonl');
    // the same fixed work (not a duration, so a loaded machine changes nothing but the wall time):
    // once on the main thread, eight times on a worker thread that ends before exit
    const script = `
      const { Worker } = require('node:worker_threads');
      const spin = 'let x = 0; for (let i = 0; i < N; i++) x = (x + i * 7) % 1000003; if (x < 0) console.log(x);';
      new Function('N', spin)(20e6);
      const w = new Worker(spin.replace('N', String(160e6)), { eval: true });
      w.on('exit', () => {});
    `;
    const r = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, BENCH_PROBE_OUT: out, NODE_OPTIONS: `--import ${join(root, 'scripts/bench-probe.mjs')}` }, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const [line] = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const t = line.threadsCpuMs as { main: number; node: number; later: number; ended: number };
    const total = (line.usage.userCPUTime + line.usage.systemCPUTime) / 1000;
    expect(t.main).toBeGreaterThan(0);
    expect(t.ended).toBeGreaterThan(2 * t.main); // the worker did eight times the main thread's work (which also started node)
    // the parts add up to the process's CPU (/proc counts in 10 ms ticks per thread)
    expect(Math.abs(t.main + t.node + t.later + t.ended - total)).toBeLessThan(20 * 10 + 5);
  });
});
