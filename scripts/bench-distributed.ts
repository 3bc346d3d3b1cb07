/**
 * Distributed crawl benchmark, frontier alone (issue 13): the shared Redis frontier on a loopback
 * server, no fetching.
 *
 *   npx tsx scripts/bench-distributed.ts [--urls 1000000] [--hosts 10000] [--batch 10000]
 *                                        [--in-flight 2] [--claim-batch 256] [--redis redis://127.0.0.1:6379/0]
 *
 * Phases, each timed on its own:
 * 1. adds: URLs `http://h<k>.bench.test/p/<i>.html`, host k uniform in [0, H) from a fixed PRNG,
 *    priorities in [0, 1] with three decimals (many ties: FIFO), hashed with urlHash (generation and
 *    hashing timed with the rest: a batch is made while the last ones are sent); `intake({adds})` per
 *    `--batch` URLs, up to `--in-flight` of them at once (the engine sends a page's links without
 *    waiting for the answer, so several pages' intakes are out at a time; 1: one after another).
 *    Redis memory per queued URL: `INFO memory` used_memory after the adds minus before, divided by
 *    the URLs.
 * 2. claims, 1 client: half the URLs, `claim(--claim-batch)` then every lease settled `done` (the
 *    settles of one claim's leases sent with the next claim, as a worker's engine does), delay 0, one
 *    lease per host at a time.
 * 3. claims, 4 clients (4 connections in this process, each its own RedisFrontier): the other half.
 * Each phase also gives `server_ms`: the time the server spent running the scripts in it (INFO
 * commandstats; the rest of the phase's time is the client's and the wire's).
 * The crawl's keys are deleted at the end. Prints one JSON object with the command.
 * `BENCH_PHASE_START` / `BENCH_PHASE_END` (environment): shell commands run just before and just
 * after the 1-client phase, waited for (bench-redis-instructions.sh turns callgrind's counting on
 * and off with them, so that it counts that phase exactly).
 */
import { execSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import type { Claim, NewUrl } from '../src/frontier/frontier.js';
import { RedisConnection } from '../src/frontier/redis-connection.js';
import { deleteCrawl } from '../src/frontier/redis-crawl-keys.js';
import { RedisFrontier } from '../src/frontier/redis-frontier.js';
import { benchUrls, scriptUsec } from './bench-redis-common.js';

const { values: a } = parseArgs({
  options: {
    urls: { type: 'string', default: '1000000' },
    hosts: { type: 'string', default: '10000' },
    batch: { type: 'string', default: '10000' },
    'claim-batch': { type: 'string', default: '256' },
    'in-flight': { type: 'string', default: '2' },
    'claims-ahead': { type: 'string', default: '0' },
    redis: { type: 'string', default: process.env.TOPICRAWL_REDIS_URL ?? 'redis://127.0.0.1:6379/0' },
  },
});
const N = Number(a.urls);
const H = Number(a.hosts);
const BATCH = Number(a.batch);
const CLAIM = Number(a['claim-batch']);
const IN_FLIGHT = Math.max(1, Number(a['in-flight']));
const AHEAD = Math.max(0, Number(a['claims-ahead']));
const crawlId = `bench-${process.pid}-${Date.now()}`;
const perSec = (n: number, ms: number) => Math.round(n / (ms / 1000));

const makeUrl = benchUrls(H);

async function usedMemory(conn: RedisConnection): Promise<number> {
  const info = await conn.client.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

/**
 * Claims and settles until `target` URLs went through, with `clients` frontiers at once. Each client
 * keeps `AHEAD` claims more on the wire than the one it is reading (0: one claim at a time); the
 * settles of a claim's leases ride with the next claim it sends, as the crawl engine's do.
 */
async function drain(frontiers: RedisFrontier[], target: number): Promise<{ claimed: number; ms: number; claims: number }> {
  let claimed = 0;
  let claims = 0;
  let asked = 0; // URLs asked for by claims sent and not answered, plus those claimed
  const t0 = performance.now();
  await Promise.all(frontiers.map(async (f) => {
    const sent: { answer: Promise<Claim>; n: number }[] = [];
    const send = () => {
      const n = Math.min(CLAIM, target - asked);
      if (n <= 0) return;
      asked += n;
      sent.push({ answer: f.claim(n, Date.now()), n });
    };
    for (let k = 0; k <= AHEAD; k++) send();
    const settles: Promise<boolean>[] = [];
    while (sent.length) {
      const { answer, n } = sent.shift()!;
      const c = await answer;
      claims++;
      const got = c.kind === 'urls' ? c.leases.length : 0;
      asked -= n - got;
      if (c.kind === 'urls') {
        claimed += got;
        const now = Date.now();
        for (const l of c.leases) settles.push(f.settle(l, { state: 'done' }, now));
      } else if (c.kind === 'wait') {
        await new Promise((r) => setTimeout(r, 1));
      } else if (sent.length === 0) break;
      send();
    }
    await Promise.all(settles);
  }));
  return { claimed, ms: performance.now() - t0, claims };
}

const conns: RedisConnection[] = [];
const connect = async () => {
  const c = await new RedisConnection(a.redis!).connect();
  conns.push(c);
  return c;
};
const out: Record<string, unknown> = {
  command: `npx tsx scripts/bench-distributed.ts ${process.argv.slice(2).join(' ')}`.trim(),
  urls: N, hosts: H, batch: BATCH, in_flight: IN_FLIGHT, claim_batch: CLAIM, claims_ahead: AHEAD, redis: a.redis,
};
const main = await connect();
try {
  const info = await main.client.info('server');
  out.redis_version = /redis_version:(\S+)/.exec(info)?.[1];
  const cfg = await main.client.config('GET', '*-max-listpack-*');
  out.redis_listpack_config = Object.fromEntries((cfg as string[]).flatMap((v, i, arr) => (i % 2 === 0 ? [[v, arr[i + 1]]] : [])));
  const opts = { crawlId, delayMs: 0, perHostConcurrency: 1 };
  const f1 = await RedisFrontier.open(main, opts);
  const mem0 = await usedMemory(main);
  const us0 = await scriptUsec(main.client);
  // as the engine sends a page's links without waiting for the answer (ids reserved): up to
  // --in-flight intakes at once; the next batch is made while they run (its making is timed too)
  const inFlight = new Set<Promise<unknown>>();
  const t0 = performance.now();
  for (let i = 0; i < N; i += BATCH) {
    const batch: NewUrl[] = [];
    for (let j = i; j < Math.min(N, i + BATCH); j++) batch.push(makeUrl(j));
    const sent: Promise<unknown> = f1.intake({ adds: batch }).then(() => inFlight.delete(sent));
    inFlight.add(sent);
    if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  const addMs = performance.now() - t0;
  const mem1 = await usedMemory(main);
  const queued = await f1.size();
  const us1 = await scriptUsec(main.client);
  // of each phase's time, how much the server spent running the scripts (the rest: the client, the wire)
  out.adds = { urls: N, queued, ms: Math.round(addMs), per_sec: perSec(N, addMs), server_ms: Math.round((us1 - us0) / 1000) };
  out.memory = { used_memory_delta_mb: +((mem1 - mem0) / 2 ** 20).toFixed(1), bytes_per_queued_url: Math.round((mem1 - mem0) / queued) };
  process.stderr.write(`adds ${JSON.stringify(out.adds)} memory ${JSON.stringify(out.memory)}\n`);

  if (process.env.BENCH_PHASE_START) execSync(process.env.BENCH_PHASE_START, { stdio: 'ignore' });
  const one = await drain([f1], Math.floor(N / 2));
  if (process.env.BENCH_PHASE_END) execSync(process.env.BENCH_PHASE_END, { stdio: 'ignore' });
  const us2 = await scriptUsec(main.client);
  out.claims_1_client = { claimed: one.claimed, claim_calls: one.claims, ms: Math.round(one.ms), per_sec: perSec(one.claimed, one.ms), server_ms: Math.round((us2 - us1) / 1000) };
  process.stderr.write(`claims, 1 client ${JSON.stringify(out.claims_1_client)}\n`);
  const four = await Promise.all([0, 1, 2, 3].map(async (k) => RedisFrontier.open(await connect(), { ...opts, workerId: `bench-${k}` })));
  const rest = await drain(four, N - one.claimed);
  out.claims_4_clients = { claimed: rest.claimed, claim_calls: rest.claims, ms: Math.round(rest.ms), per_sec: perSec(rest.claimed, rest.ms), server_ms: Math.round((await scriptUsec(main.client) - us2) / 1000) };
  out.left_queued = await f1.size();
  for (const f of [f1, ...four]) await f.close();
} finally {
  await deleteCrawl(main, crawlId);
  for (const c of conns) await c.close();
}
console.log(JSON.stringify(out, null, 2));
