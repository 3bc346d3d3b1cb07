/**
 * Requests per second of the corpus server (what `eval`, `tune` and the benchmarks crawl), against
 * a bare node:http server answering the same body from memory, in the same run, with the same
 * client: `--requests` GETs over `--sockets` keep-alive connections.
 *
 *   npx tsx scripts/bench-corpus-server.ts [--requests 20000] [--sockets 32]
 *
 * The ratio (corpus server ÷ bare server) is what to compare between machines or commits; the
 * absolute rates move with the machine's load. This was a test assertion (≥ 1,000 requests/s),
 * which failed on a loaded 2-core machine; the test keeps the functional check (every answer right).
 */
import { Agent, createServer, request } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startCorpusServer } from '../src/eval/corpus-server.js';

const { values: a } = parseArgs({ options: { requests: { type: 'string', default: '20000' }, sockets: { type: 'string', default: '32' } } });
const N = Number(a.requests);
const SOCKETS = Number(a.sockets);
const command = `npx tsx scripts/bench-corpus-server.ts ${process.argv.slice(2).join(' ')}`.trim();
const BODY = '<!doctype html><title>page</title><p>a page of the benchmark corpus</p>'.repeat(20);

function get(port: number, agent: Agent): Promise<string> {
  return new Promise((ok, ko) => {
    const req = request({ host: '127.0.0.1', port, path: '/docs/page.html', headers: { host: 'a.example' }, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ok(Buffer.concat(chunks).toString('utf8')));
      res.on('error', ko);
    });
    req.on('error', ko);
    req.end();
  });
}

/** Requests per second against a server on `port`, N requests with at most SOCKETS in flight. */
async function rate(port: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: SOCKETS });
  for (let i = 0; i < 200; i++) await get(port, agent); // warm up
  let next = 0;
  let wrong = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: SOCKETS }, async () => {
      while (next < N) {
        next++;
        if ((await get(port, agent)) !== BODY) wrong++;
      }
    }),
  );
  const s = (performance.now() - t0) / 1000;
  agent.destroy();
  if (wrong) throw new Error(`${wrong} wrong answers`);
  return N / s;
}

const dir = mkdtempSync(join(tmpdir(), 'bench-corpus-server-'));
try {
  mkdirSync(join(dir, 'site/a.example/docs'), { recursive: true });
  writeFileSync(join(dir, 'site/a.example/docs/page.html'), BODY);
  writeFileSync(join(dir, 'corpus.json'), JSON.stringify({ name: 'bench', description: 'bench', license: 'CC0-1.0', seeds: ['http://a.example/docs/page.html'], labels: {} }));
  writeFileSync(join(dir, 'labels.tsv'), 'url\tlabels\n');
  const corpus = await startCorpusServer(dir);
  const bare = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(BODY));
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const barePort = (bare.address() as import('node:net').AddressInfo).port;
  try {
    // alternate, so both see the same machine load
    const corpusRates: number[] = [];
    const bareRates: number[] = [];
    for (let round = 0; round < 2; round++) {
      corpusRates.push(await rate(corpus.port));
      bareRates.push(await rate(barePort));
    }
    const c = Math.max(...corpusRates);
    const b = Math.max(...bareRates);
    console.log(command);
    console.log(`${N} requests, ${SOCKETS} keep-alive sockets, best of 2 rounds each`);
    console.log(`corpus server   ${c.toFixed(0)} requests/s (file read, Host routing, validators, request log)`);
    console.log(`bare node:http  ${b.toFixed(0)} requests/s (same body from memory)`);
    console.log(`ratio           ${(c / b).toFixed(2)} of the bare server`);
  } finally {
    await corpus.close();
    await new Promise((r) => bare.close(r));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
