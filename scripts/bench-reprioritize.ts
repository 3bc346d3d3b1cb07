/**
 * Cost of Frontier.reprioritize, what partial-pagerank (and larger-sites-first) pay the frontier to
 * re-rank queued URLs: a real SqliteFrontier on a temporary file with `--urls` queued URLs over 1,000
 * hosts, then `--rounds` transactions of `--batch` random re-rankings each (as a recompute does).
 *
 *   npx tsx scripts/bench-reprioritize.ts [--urls 100000] [--batch 7000] [--rounds 10]
 *
 * Prints µs per re-ranked URL, wall and CPU.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SqliteFrontier } from '../src/frontier/sqlite-frontier.js';
import { SqliteStore } from '../src/store/sqlite-store.js';
import { urlHash } from '../src/url/url-hash.js';

const { values: a } = parseArgs({ options: { urls: { type: 'string', default: '100000' }, batch: { type: 'string', default: '7000' }, rounds: { type: 'string', default: '10' } } });
const N = Number(a.urls);
const dir = mkdtempSync(join(tmpdir(), 'bench-reprioritize-'));
const store = new SqliteStore(join(dir, 'r.db'), { commitEveryMs: 0 });
const f = new SqliteFrontier(store.db, { delayMs: 0, perHostConcurrency: 1 });
try {
  for (let b = 0; b < N; b += 10_000) {
    const n = Math.min(10_000, N - b);
    store.transaction(() => f.add(Array.from({ length: n }, (_, k) => {
      const url = `http://h${(b + k) % 1000}.bench.test/${b + k}`;
      return { hash: urlHash(url), url, host: new URL(url).host, depth: 1, priority: Math.random(), life: 1, parentId: null, anchor: null };
    })));
  }
  let rows = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let r = 0; r < Number(a.rounds); r++) {
    const ups = Array.from({ length: Number(a.batch) }, () => ({ id: 1 + Math.floor(Math.random() * N), priority: Math.random() }));
    store.transaction(() => (rows += f.reprioritize(ups)));
  }
  const cpu = process.cpuUsage(c0);
  const out = {
    command: `npx tsx scripts/bench-reprioritize.ts ${process.argv.slice(2).join(' ')}`.trim(), queued_urls: N, rows,
    us_per_row_wall: +(((performance.now() - t0) * 1000) / rows).toFixed(2), us_per_row_cpu: +((cpu.user + cpu.system) / rows).toFixed(2),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  f.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
