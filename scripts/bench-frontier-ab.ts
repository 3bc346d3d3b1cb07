/**
 * The shared Redis frontier of two commits, interleaved on one server in one process (issue 13):
 * each side loads the same URLs into its own crawl, then both drain theirs, taking turns of a few
 * claims each. Where bench-versus.ts runs the whole benchmark at each commit in turn (minutes
 * apart, on a machine whose speed drifts by a third within an hour), here both sides meet the same
 * moments of the machine, so a few per cent shows.
 *
 *   npx tsx scripts/bench-frontier-ab.ts --base <commit> [--urls 1000000] [--hosts 10000]
 *       [--batch 10000] [--claim-batch 256] [--turn 8] [--redis redis://127.0.0.1:6379/0]
 *
 * The base commit is checked out in a temporary git worktree (node_modules linked from this
 * checkout) and its `src/frontier/redis-frontier.ts` imported beside this checkout's: "new" is the
 * working tree. URLs as in bench-distributed.ts (`http://h<k>.bench.test/p/<i>.html`, host uniform,
 * priorities with three decimals); both sides get the same ones.
 * - adds: `intake({adds})` per `--batch`, one at a time, the sides alternating per batch (which
 *   goes first alternates too);
 * - claims, 1 client each: `claim(--claim-batch)`, every lease settled done with the next claim
 *   (as bench-distributed.ts), delay 0, one lease per host at a time; the sides take turns of
 *   `--turn` claims until both crawls are empty.
 * Per side and phase: wall ms, URLs per second, and the server's script time (INFO commandstats
 * around each turn: only one side runs at a time) in µs per URL; then new/base for each. Both
 * crawls' keys are deleted at the end, and the worktree removed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { NewUrl } from '../src/frontier/frontier.js';
import { benchUrls, scriptUsec } from './bench-redis-common.js';

const { values: a } = parseArgs({
  options: {
    base: { type: 'string' },
    urls: { type: 'string', default: '1000000' },
    hosts: { type: 'string', default: '10000' },
    batch: { type: 'string', default: '10000' },
    'claim-batch': { type: 'string', default: '256' },
    turn: { type: 'string', default: '8' },
    redis: { type: 'string', default: process.env.TOPICRAWL_REDIS_URL ?? 'redis://127.0.0.1:6379/0' },
  },
});
if (!a.base) {
  process.stderr.write('usage: bench-frontier-ab.ts --base <commit> [--urls N] [--hosts H] [--batch B] [--claim-batch C] [--turn T]\n');
  process.exit(2);
}
const N = Number(a.urls);
const H = Number(a.hosts);
const BATCH = Number(a.batch);
const CLAIM = Number(a['claim-batch']);
const TURN = Number(a.turn);

/** What both commits' modules offer, as far as this benchmark uses them. */
interface Lease { token: string }
interface Frontier {
  intake(w: { adds: NewUrl[] }): Promise<unknown>;
  claim(max: number, now: number): Promise<{ kind: string; leases?: Lease[] }>;
  settle(l: Lease, how: { state: 'done' }, now: number): Promise<boolean>;
  size(): Promise<number>;
  close(): Promise<void>;
}
interface Conn { client: { info(section: string): Promise<string> }; connect(): Promise<Conn>; close(): Promise<void> }
interface Side {
  name: 'base' | 'new';
  conn: Conn;
  f: Frontier;
  crawlId: string;
  del: (conn: Conn, crawlId: string) => Promise<number>;
  addMs: number; addUs: number;
  claimMs: number; claimUs: number; claimed: number;
  settling: Promise<unknown>;
  empty: boolean;
}

const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
const baseSha = execFileSync('git', ['rev-parse', '--verify', `${a.base}^{commit}`], { cwd: root, encoding: 'utf8' }).trim();
const tree = mkdtempSync(join(tmpdir(), 'bench-ab-'));
const removeTree = () => {
  try {
    execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: root, stdio: 'ignore' });
  } catch {
    rmSync(tree, { recursive: true, force: true });
  }
};
execFileSync('git', ['worktree', 'add', '--detach', tree, baseSha], { cwd: root, stdio: 'ignore' });
symlinkSync(realpathSync(join(root, 'node_modules')), join(tree, 'node_modules'));

async function side(name: 'base' | 'new', dir: string): Promise<Side> {
  const mod = (p: string) => import(pathToFileURL(join(dir, p)).href);
  const { RedisConnection } = await mod('src/frontier/redis-connection.ts');
  const { RedisFrontier } = await mod('src/frontier/redis-frontier.ts');
  const { deleteCrawl } = await mod('src/frontier/redis-crawl-keys.ts');
  const conn = (await new RedisConnection(a.redis!).connect()) as Conn;
  const crawlId = `ab-${name}-${process.pid}-${Date.now()}`;
  const f = (await RedisFrontier.open(conn, { crawlId, delayMs: 0, perHostConcurrency: 1 })) as Frontier;
  return { name, conn, f, crawlId, del: deleteCrawl, addMs: 0, addUs: 0, claimMs: 0, claimUs: 0, claimed: 0, settling: Promise.resolve(), empty: false };
}

/** Times `work` for side `s`: wall ms and the server's script µs, added to its `ms`/`us` fields. */
async function timed(s: Side, phase: 'add' | 'claim', work: () => Promise<void>): Promise<void> {
  const us0 = await scriptUsec(s.conn.client);
  const t0 = performance.now();
  await work();
  const ms = performance.now() - t0;
  const us = (await scriptUsec(s.conn.client)) - us0;
  if (phase === 'add') {
    s.addMs += ms;
    s.addUs += us;
  } else {
    s.claimMs += ms;
    s.claimUs += us;
  }
}

/** Up to TURN claims of side `s`, each lease settled done with the next claim. */
async function turn(s: Side): Promise<void> {
  for (let k = 0; k < TURN && !s.empty; k++) {
    const c = await s.f.claim(CLAIM, Date.now());
    if (c.kind !== 'urls') {
      await s.settling;
      if (c.kind === 'wait') await new Promise((r) => setTimeout(r, 1));
      else s.empty = true;
      continue;
    }
    s.claimed += c.leases!.length;
    const now = Date.now();
    await s.settling;
    s.settling = Promise.all(c.leases!.map((l) => s.f.settle(l, { state: 'done' }, now)));
  }
  // (the last settles ride with this side's next turn)
}

const sides: Side[] = [];
const out: Record<string, unknown> = {
  command: `npx tsx scripts/bench-frontier-ab.ts ${process.argv.slice(2).join(' ')}`.trim(),
  base_commit: baseSha.slice(0, 10), urls: N, hosts: H, batch: BATCH, claim_batch: CLAIM, turn: TURN,
};
try {
  sides.push(await side('base', tree), await side('new', root));
  const makeUrl = benchUrls(H);
  for (let i = 0, b = 0; i < N; i += BATCH, b++) {
    const adds: NewUrl[] = [];
    for (let j = i; j < Math.min(N, i + BATCH); j++) adds.push(makeUrl(j));
    for (const s of b % 2 === 0 ? sides : [...sides].reverse()) await timed(s, 'add', () => s.f.intake({ adds }).then(() => undefined));
  }
  for (let t = 0; !sides.every((s) => s.empty); t++) {
    for (const s of t % 2 === 0 ? sides : [...sides].reverse()) if (!s.empty) await timed(s, 'claim', () => turn(s));
  }
  for (const s of sides) await s.settling;
  const per = (n: number, ms: number) => Math.round(n / (ms / 1000));
  for (const s of sides) {
    if (s.claimed !== N) throw new Error(`${s.name}: ${s.claimed} URLs claimed of ${N}`);
    out[s.name] = {
      adds: { ms: Math.round(s.addMs), per_sec: per(N, s.addMs), server_us_per_url: +(s.addUs / N).toFixed(2) },
      claims: { ms: Math.round(s.claimMs), per_sec: per(N, s.claimMs), server_us_per_url: +(s.claimUs / N).toFixed(2) },
    };
  }
  const [x, y] = sides;
  out.new_over_base = {
    adds_per_sec: +(x.addMs / y.addMs).toFixed(3), adds_server_us: +(y.addUs / x.addUs).toFixed(3),
    claims_per_sec: +(x.claimMs / y.claimMs).toFixed(3), claims_server_us: +(y.claimUs / x.claimUs).toFixed(3),
  };
} finally {
  for (const s of sides) {
    await s.f.close().catch(() => undefined);
    await s.del(s.conn, s.crawlId).catch(() => undefined);
    await s.conn.close().catch(() => undefined);
  }
  removeTree();
}
console.log(JSON.stringify(out, null, 2));
