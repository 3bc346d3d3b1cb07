/**
 * Frontier benchmark (issue: scale): N URLs over H hosts enqueued in batches, then dequeued through
 * the politeness scheduler, each dequeued URL recorded as the crawl records an outcome.
 *
 *   npx tsx scripts/bench-frontier.ts [--urls 10000000] [--hosts 100000] [--batch 10000] [--db FILE]
 *                                     [--dequeue-batch 1000] [--in-flight 64] [--delay-seconds 5] [--enqueue-only] [--keep]
 *                                     [--checkpoint background|inline] [--door [--door-commit batch|crawl]]
 *
 * Phases, each timed on its own:
 * 1. enqueue: URLs `http://h<k>.bench.test/p/<i>.html` from a fixed PRNG (host k skewed: k = ⌊H·u²⌋,
 *    so the busiest host gets ~1/√H of the URLs and the quietest ~1/(2H)), priorities in [0, 1] with
 *    three decimals (many ties: FIFO tie-break), hashed with urlHash; `frontier.add(batch)` inside
 *    one store transaction per batch, committed per batch. Generation and hashing are timed apart.
 * 2. lookup: known and unknown hashes in chunks of 64 (as link intake does).
 * 3. delayed: a frontier with a 1 s politeness delay, simulated clock (injected `now`) for
 *    `--delay-seconds`: the waiting-heap path, with `wait` answers jumping the clock.
 * 4. reopen: a new frontier on the same file (what a resumed crawl does), delay 0.
 * 5. drain: everything left, `next(now)` + `recordOutcome` + `release(item, now)` with up to
 *    `--in-flight` URLs handed out at once, one transaction per `--dequeue-batch` dequeues.
 *
 * --door: the phases go through the doors the crawl uses since issue 13, as openCrawlState builds
 * them (EmbeddedFrontier on the SqliteFrontier, its writes in the store's transaction; CrawlFileStore;
 * the store's group commit: 50 ms or --dequeue-batch pages, so that the drain commits as often as
 * the default path's, like for like; --door-commit crawl: the crawl's own, 50 ms or 64 pages, what
 * a crawl pays, before and since the doors): enqueue is
 * `await frontier.intake({adds: batch})` per batch, lookup `await frontier.known(keys)`, and the
 * dequeue loops (delayed, drain) `await frontier.claim(room, now)` with room = `--in-flight` minus
 * the leases held, then per URL `await store.recordPage(...)` (recordedUrl as the crawl builds it;
 * outcome only, no response, links or host counts: the same rows as the default path) and
 * `await frontier.settle(lease, {state: 'done'}, now)`. The loop yields to the event loop once per
 * batch (`--batch` adds, `--dequeue-batch` dequeues; timed) so that the group-commit timer runs as
 * in a crawl. Budget unlimited. Without --door the script is what it was before issue 13, so an
 * old commit and a new one compare like for like (scripts/bench-versus.ts).
 *
 * Prints one JSON object. Peak RSS: sampled every batch and process.resourceUsage().maxRSS. Run with
 * `npx tsx --expose-gc …` to also get the live V8 heap after each phase (a full GC at phase ends).
 * BENCH_TRACE=1 prints progress of the enqueue phase on stderr; BENCH_PRAGMAS='a=1;b=2' sets SQLite
 * pragmas on the connection, BENCH_COMMIT_EVERY=n the group commit's transactions per group (with
 * --door; SqliteStore's commitEveryPages, 64), for experiments (not the product's settings).
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { FrontierItem, NewUrl, UrlKey } from '../src/frontier/frontier.js';
import type { DoorBench } from './bench-frontier-door.js';
import { SqliteFrontier } from '../src/frontier/sqlite-frontier.js';
import { SqliteStore, UrlState } from '../src/store/sqlite-store.js';
import { urlHash } from '../src/url/url-hash.js';
import { mulberry32 } from '../src/eval/prng.js';

const { values: a } = parseArgs({
  options: {
    urls: { type: 'string', default: '10000000' },
    hosts: { type: 'string', default: '100000' },
    batch: { type: 'string', default: '10000' },
    'dequeue-batch': { type: 'string', default: '1000' },
    'in-flight': { type: 'string', default: '64' },
    'delay-seconds': { type: 'string', default: '5' },
    db: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'enqueue-only': { type: 'boolean', default: false },
    checkpoint: { type: 'string', default: 'background' },
    door: { type: 'boolean', default: false },
    'door-commit': { type: 'string', default: 'batch' },
  },
});
const N = Number(a.urls);
const H = Number(a.hosts);
const BATCH = Number(a.batch);
const DQ_BATCH = Number(a['dequeue-batch']);
const IN_FLIGHT = Number(a['in-flight']);
const DELAY_S = Number(a['delay-seconds']);
const QCACHE = process.env.BENCH_QUEUE_CACHE_MB ? Number(process.env.BENCH_QUEUE_CACHE_MB) : undefined;

const dir = a.db ? null : mkdtempSync(join(tmpdir(), 'bench-frontier-'));
const dbPath = a.db ?? join(dir!, 'frontier.db');
if (a.db && existsSync(dbPath)) throw new Error(`${dbPath} exists: the benchmark wants a fresh file`);

let peakRss = 0;
const sampleRss = () => (peakRss = Math.max(peakRss, process.memoryUsage.rss()));
const mb = (b: number) => +(b / 2 ** 20).toFixed(1);
const size = (p: string) => (existsSync(p) ? statSync(p).size : 0);
const dbSize = () => ({ file_mb: mb(size(dbPath)), wal_mb: mb(size(`${dbPath}-wal`)), total_mb: mb(size(dbPath) + size(`${dbPath}-wal`)) });
const perSec = (n: number, ms: number) => Math.round(n / (ms / 1000));
/** RSS and V8 heap now; with --expose-gc also the live heap after a full collection. */
function memory(): Record<string, number> {
  const m = process.memoryUsage();
  const out: Record<string, number> = { rss_mb: mb(m.rss), heap_total_mb: mb(m.heapTotal), heap_used_mb: mb(m.heapUsed) };
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    out.heap_live_mb = mb(process.memoryUsage().heapUsed);
  }
  return out;
}

/** With BENCH_TRACE set, each phase's figures go to stderr as soon as the phase ends. */
function trace(phase: string, figures: unknown): void {
  if (process.env.BENCH_TRACE) process.stderr.write(`${phase} ${JSON.stringify(figures)} peak_rss_mb ${mb(process.resourceUsage().maxRSS * 1024)}\n`);
}

/** Thrown to stop after a phase (--enqueue-only). */
class Done extends Error {}

const rng = mulberry32(1);
const rand = () => rng.next();
function makeUrl(i: number): NewUrl {
  const u = rand();
  const k = Math.floor(H * u * u);
  const host = `h${k}.bench.test`;
  const url = `http://${host}/p/${i}.html`;
  return { hash: urlHash(url), url, host, depth: i % 7, priority: Math.round(rand() * 1000) / 1000, life: 3, parentId: null, anchor: null };
}

// every store.transaction commits; WAL checkpoints in a background thread as the crawl does (--checkpoint inline: SQLite's own)
// --door: the store's group commit, a commit per --dequeue-batch pages (as the default path commits
// its dequeue batches) or, with --door-commit crawl, the crawl's own (SqliteStore's defaults)
const DOOR = a.door;
if (!['batch', 'crawl'].includes(a['door-commit']!)) throw new Error(`--door-commit: batch or crawl, not ${a['door-commit']}`);
const CRAWL_COMMIT = a['door-commit'] === 'crawl';
const store = new SqliteStore(dbPath, {
  commitEveryMs: DOOR ? undefined : 0,
  commitEveryPages: process.env.BENCH_COMMIT_EVERY ? Number(process.env.BENCH_COMMIT_EVERY) : DOOR && !CRAWL_COMMIT ? DQ_BATCH : undefined,
  backgroundCheckpoint: a.checkpoint !== 'inline',
});
for (const p of (process.env.BENCH_PRAGMAS ?? '').split(';').filter(Boolean)) store.db.pragma(p);
const out: Record<string, unknown> = {
  command: `npx tsx ${'gc' in globalThis ? '--expose-gc ' : ''}scripts/bench-frontier.ts ${process.argv.slice(2).join(' ')}`.trim(),
  urls: N, hosts: H, batch: BATCH,
  ...(DOOR ? { door: true, door_commit: CRAWL_COMMIT ? 'crawl: 50 ms or 64 pages' : `batch: 50 ms or ${DQ_BATCH} pages` } : {}),
};
let frontier!: SqliteFrontier;
// --door: the doors, loaded only then (the default path runs the same modules as before issue 13)
const doorModule = DOOR ? await import('./bench-frontier-door.js') : null;
let door: DoorBench | null = null;
try {
  // 1. enqueue
  frontier = new SqliteFrontier(store.db, { delayMs: 1000, perHostConcurrency: 1, queueCacheMb: QCACHE });
  if (doorModule) door = new doorModule.DoorBench(store, frontier);
  let genMs = 0;
  let addMs = 0;
  const LOOK = Math.min(200_000, N);
  const stride = Math.max(1, Math.floor(N / LOOK));
  const known: Buffer[] = []; // a sample of enqueued hashes, for the lookup phase
  const knownHosts: string[] = []; // --door: their hosts (the door's lookup takes them), one string per host
  const hostNames = new Map<string, string>();
  for (let i = 0; i < N; i += BATCH) {
    const g0 = performance.now();
    const batch: NewUrl[] = [];
    for (let j = i; j < Math.min(N, i + BATCH); j++) {
      batch.push(makeUrl(j));
      if (j % stride === 0 && known.length < LOOK) {
        known.push(batch[batch.length - 1].hash);
        if (DOOR) {
          const host = batch[batch.length - 1].host;
          knownHosts.push(hostNames.get(host) ?? (hostNames.set(host, host), host));
        }
      }
    }
    const t0 = performance.now();
    genMs += t0 - g0;
    if (door) {
      await door.frontier.intake({ adds: batch });
      await doorModule!.yieldToTimers();
    } else store.transaction(() => frontier.add(batch));
    addMs += performance.now() - t0;
    sampleRss();
    if (process.env.BENCH_TRACE && (i / BATCH) % 10 === 0) {
      const m = process.memoryUsage();
      process.stderr.write(`${i} rss ${mb(m.rss)} heap ${mb(m.heapTotal)}/${mb(m.heapUsed)} ext ${mb(m.external)} ${perSec(i + BATCH, addMs)}/s\n`);
    }
  }
  out.enqueue = {
    enqueues_per_s: perSec(N, addMs), seconds: +(addMs / 1000).toFixed(1),
    with_generation_per_s: perSec(N, addMs + genMs), generation_seconds: +(genMs / 1000).toFixed(1),
    queued: frontier.size(), frontier_memory: frontier.memoryStats(), memory: memory(), db: dbSize(),
  };
  trace('enqueue', out.enqueue);

  if (a['enqueue-only']) throw new Done();
  // 2. lookup: known URLs (a sample spread over the whole run) and unknown ones
  {
    const unknown = Array.from({ length: LOOK }, (_, i) => urlHash(`http://new.bench.test/${i}`));
    const l0 = performance.now();
    let found = 0;
    if (door) {
      // the keys made per chunk, as link intake makes them per page
      const hostOf = (hs: Buffer[], i: number) => (hs === known ? knownHosts[i] : 'new.bench.test');
      for (const hs of [known, unknown]) {
        for (let i = 0; i < hs.length; i += 64) {
          const keys: UrlKey[] = hs.slice(i, i + 64).map((hash, k) => ({ hash, host: hostOf(hs, i + k) }));
          found += (await door.frontier.known(keys)).size;
        }
      }
    } else for (const hs of [known, unknown]) for (let i = 0; i < hs.length; i += 64) found += frontier.lookup(hs.slice(i, i + 64)).size;
    const lookMs = performance.now() - l0;
    out.lookup = { hashes_per_s: perSec(known.length + unknown.length, lookMs), known: known.length, found };
  trace('lookup', out.lookup);
    known.length = 0;
    knownHosts.length = 0;
  }

  // the dequeue loop: up to IN_FLIGHT handed out, each recorded then released, DQ_BATCH per transaction
  const inFlight: FrontierItem[] = [];
  let dequeued = 0;
  function record(item: FrontierItem, now: number): void {
    store.recordOutcome({
      urlId: item.id, state: UrlState.FETCHED, status: 200, error: null, relevance: 0.5, relevant: false, contentHash: null,
      fetchedAt: now, fetchSeq: store.nextFetchSeq(), fetchPriority: item.priority,
    });
    frontier.release(item, now);
  }
  /** Runs until `stop(now)` or the frontier is empty; returns the simulated clock. */
  function dequeueLoop(now: number, stop: (now: number) => boolean): number {
    let done = false;
    while (!done) {
      store.transaction(() => {
        for (let n = 0; n < DQ_BATCH; ) {
          if (stop(now)) return void (done = true);
          const r = frontier.next(now);
          if (r.kind === 'url') {
            inFlight.push(r.item);
            dequeued++;
            n++;
            if (inFlight.length >= IN_FLIGHT) record(inFlight.shift()!, now);
            continue;
          }
          if (inFlight.length > 0) record(inFlight.shift()!, now);
          else if (r.kind === 'wait') now = r.until;
          else return void (done = true);
        }
      });
      sampleRss();
    }
    store.transaction(() => {
      while (inFlight.length > 0) record(inFlight.shift()!, now);
    });
    return now;
  }

  /** --door: the same loop through claim, recordPage and settle (bench-frontier-door.ts). */
  async function doorLoop(now: number, stop: (now: number) => boolean): Promise<number> {
    const r = await door!.loop({ now, stop, inFlight: IN_FLIGHT, batch: DQ_BATCH, afterBatch: sampleRss });
    dequeued += r.dequeued;
    return r.now;
  }

  // 3. delayed: 1 s per host, simulated clock
  const T0 = 1_000_000;
  let d0 = performance.now();
  if (DOOR) await doorLoop(T0, (now) => now >= T0 + DELAY_S * 1000);
  else dequeueLoop(T0, (now) => now >= T0 + DELAY_S * 1000);
  let ms = performance.now() - d0;
  out.delayed = { delay_ms: 1000, simulated_seconds: DELAY_S, dequeued, dequeues_per_s: perSec(dequeued, ms), seconds: +(ms / 1000).toFixed(1), memory: memory() };
  trace('delayed', out.delayed);

  // 4. reopen with delay 0
  frontier.close(); // what a stopped crawl does; a resumed one is a new process, so the old frontier's memory goes
  frontier = undefined as unknown as SqliteFrontier;
  if (DOOR) store.commit(); // a stopped crawl's store commits its last group on close
  (globalThis as { gc?: () => void }).gc?.();
  const r0 = performance.now();
  frontier = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1, queueCacheMb: QCACHE });
  door?.reopen(frontier);
  out.reopen = { seconds: +((performance.now() - r0) / 1000).toFixed(2), queued: frontier.size(), frontier_memory: frontier.memoryStats() };
  trace('reopen', out.reopen);
  sampleRss();

  // 5. drain
  const before = dequeued;
  d0 = performance.now();
  if (DOOR) await doorLoop(T0 + DELAY_S * 1000, () => false);
  else dequeueLoop(T0 + DELAY_S * 1000, () => false);
  ms = performance.now() - d0;
  out.drain = {
    dequeued: dequeued - before, dequeues_per_s: perSec(dequeued - before, ms), seconds: +(ms / 1000).toFixed(1),
    left: frontier.size(), in_flight: frontier.inFlight(), memory: memory(),
  };
  trace('drain', out.drain);
  const fetched = (store.db.prepare('SELECT COUNT(*) AS n FROM urls WHERE state = ?').get(UrlState.FETCHED) as { n: number }).n;
  out.fetched_total = fetched;
  out.db_at_end = dbSize();
  sampleRss();
  out.peak_rss_mb = { sampled: mb(peakRss), max_rss: mb(process.resourceUsage().maxRSS * 1024) };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  if (fetched !== N) throw new Error(`fetched ${fetched} of ${N}`);
} catch (err) {
  if (!(err instanceof Done)) throw err;
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
} finally {
  frontier?.close();
  store.close();
  if (dir && !a.keep) rmSync(dir, { recursive: true, force: true });
}
