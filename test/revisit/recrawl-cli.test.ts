import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUntil } from '../../src/cli/recrawl-command.js';
import { runStats } from '../../src/cli/report-commands.js';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { startPoissonServer, type PoissonServer } from '../helpers/poisson-server.js';
import { runCli } from '../helpers/run-cli.js';
import { suiteTmpDir } from '../helpers/tmp.js';

/** The `topicrawl` CLI (in-process, see runCli): crawl --revisit, recrawl (now, --until), stats with revisit figures. */
const DAY = 86_400_000;
const PAGES = ['/a', '/b', '/c'];

describe('topicrawl recrawl and crawl --revisit', () => {
  const dir = suiteTmpDir();
  let server: PoissonServer;
  let resolve: string;
  const db = join(dir, 'cli.db');
  const topic = join(dir, 'topic.yaml');
  beforeAll(async () => {
    server = await startPoissonServer({ pages: PAGES.map((path) => ({ path, ratePerDay: 0 })), clock: Date.now, start: Date.now(), horizonMs: DAY });
    resolve = `poisson.test=127.0.0.1:${server.port}`;
    writeFileSync(
      topic,
      [
        'name: cli-revisit',
        'seeds: ["http://poisson.test/"]',
        'keywords: { tobacco: 1 }',
        'politeness: { delay_ms: 100, robots: false }',
        'revisit:',
        '  classes:',
        // due again at once after the crawl (the politeness delay spaces the requests), later every 400 ms at most
        '    - { name: content, patterns: [".*"], initial_ms: 1, min_ms: 1, max_ms: 400 }',
        '',
      ].join('\n'),
    );
  });
  afterAll(async () => server?.close());

  it('crawl --revisit revisits what is due right after the crawl', async () => {
    const r = await runCli(['crawl', topic, '--db', db, '--resolve', resolve, '--revisit', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as { fetched: number; revisit: Record<string, number> };
    expect(j.fetched).toBe(PAGES.length + 1);
    expect(j.revisit.enrolled).toBe(PAGES.length + 1);
    expect(j.revisit.checked).toBe(PAGES.length + 1);
    // the pages send validators (304); the home page does not (200, same normalised text)
    expect(j.revisit.notModified).toBe(PAGES.length);
    expect(j.revisit.unchanged).toBe(1);
    expect(j.revisit.bytesSaved).toBeGreaterThan(0);
  }, 60_000);

  it('recrawl revisits what is due now, then with --until keeps going until then; stats counts the checks', async () => {
    const now = await runCli(['recrawl', db, '--resolve', resolve, '--json']);
    expect(now.code).toBe(0);
    const a = JSON.parse(now.stdout) as Record<string, number>;
    expect(a.checked).toBe(PAGES.length + 1);
    expect(a.enrolled).toBe(0);

    const t0 = Date.now();
    const until = await runCli(['recrawl', db, '--resolve', resolve, '--until', '2500ms']);
    expect(until.code).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2500); // it waited for the deadline (a lower bound: load cannot break it)
    const m = /checked\s+(\d+) \((\d+) changed, (\d+) unchanged, (\d+) not modified \(304\), (\d+) deleted, (\d+) failed\)/.exec(until.stdout);
    expect(m, until.stdout).not.toBeNull();
    const checked = Number(m![1]);
    // it went on after the pass that was due at once: some page was checked again (pages are due at most
    // 400 ms after a check, requests 100 ms apart, so a quiet machine makes ~20 checks in 2.5 s; the
    // test asks for the behaviour, not a rate)
    expect(checked).toBeGreaterThan(PAGES.length + 1);
    const conn = openDatabase(db, { readonly: true });
    try {
      // within the --until run, checks of the one host are at least its delay apart (a check is stamped
      // when its answer is in, and the next request waits the delay from then). Runs do not share
      // politeness state: a run started at once after another may come sooner, so only this run's checks
      const at = (conn.prepare('SELECT at FROM checks WHERE at >= ? ORDER BY at').all(t0) as { at: number }[]).map((r) => r.at);
      expect(at).toHaveLength(checked);
      for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeGreaterThanOrEqual(99);
    } finally {
      conn.close();
    }
    expect(Number(m![2])).toBe(0);
    expect(until.stdout).toMatch(/bytes\s+\d+ transferred, \d+ saved by 304s/);

    const stats = await runCli(['stats', db, '--json']);
    const s = JSON.parse(stats.stdout) as { revisit: Record<string, number> };
    expect(s.revisit.checks).toBe(2 * (PAGES.length + 1) + checked);
    expect(s.revisit.scheduled).toBe(PAGES.length + 1);
    expect(s.revisit.changed).toBe(0);
    const text: string[] = [];
    runStats({ db }, { log: (l) => text.push(l) });
    expect(text.join('\n')).toMatch(/revisit checks\s+\d+ \(0 changed/);
  }, 60_000);

  it('explain shows a page\'s revisit state: its class, checks, next due time and latest checks', async () => {
    const url = 'http://poisson.test/a';
    const conn = openDatabase(db, { readonly: true });
    let stored: { checks: number; changes: number; next_at: number; class: string; n: number; last: number };
    try {
      stored = conn
        .prepare(
          `SELECT v.checks, v.changes, v.next_at, v.class, (SELECT COUNT(*) FROM checks c WHERE c.url_id = v.url_id) AS n,
                  (SELECT MAX(at) FROM checks c WHERE c.url_id = v.url_id) AS last
             FROM revisits v JOIN urls u ON u.id = v.url_id WHERE u.url = ?`,
        )
        .get(url) as typeof stored;
    } finally {
      conn.close();
    }
    const j = await runCli(['explain', db, url, '--json']);
    expect(j.code, j.stderr).toBe(0);
    const r = JSON.parse(j.stdout).revisit as { cls: string; checks: number; changes: number; nextAt: number; totalChecks: number; rate: number; recent: { at: number; outcome: string; status: number }[] };
    expect(r).toMatchObject({ cls: stored.class, checks: stored.checks, changes: stored.changes, nextAt: stored.next_at, totalChecks: stored.n });
    expect(r.rate).toBe(0); // the pages of this server never change
    expect(r.recent.length).toBe(Math.min(10, stored.n));
    expect(r.recent[0].at).toBe(stored.last);
    for (let i = 1; i < r.recent.length; i++) expect(r.recent[i].at).toBeLessThanOrEqual(r.recent[i - 1].at);
    expect(r.recent.every((c) => c.outcome === 'not_modified' && c.status === 304)).toBe(true);
    const t = await runCli(['explain', db, url]);
    expect(t.code).toBe(0);
    expect(t.stdout).toContain(`revisit (class ${stored.class}):`);
    expect(t.stdout).toContain(`next due       ${new Date(stored.next_at).toISOString()}`);
    expect(t.stdout).toContain(`checks         ${stored.checks} compared with the stored copy (0 found a change)`);
    // the server's Last-Modified held (only 304s): the rate comes from the time watched without a change
    expect(t.stdout).toMatch(/change rate    λ̂ 0 changes\/day, from Last-Modified: 0 changes aged 0 days in all, [\d.]+ days watched unchanged/);
    expect(t.stdout).toContain(`${new Date(stored.last).toISOString()}  304 not_modified`);
  }, 30_000);

  it('refuses a bad --until with a usage error', async () => {
    const r = await runCli(['recrawl', db, '--until', 'tomorrow-ish']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--until tomorrow-ish: expected a date .* \[E_USAGE\]/);
    expect(parseUntil('7d', 1000)).toBe(1000 + 7 * DAY);
    expect(parseUntil('1.5h', 0)).toBe(5_400_000);
    expect(parseUntil('2026-01-31T18:00:00Z', 0)).toBe(Date.parse('2026-01-31T18:00:00Z'));
  }, 30_000);
});
