import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStats } from '../../src/cli/report-commands.js';
import { UrlState } from '../../src/frontier/url-state.js';
import { openDatabase } from '../../src/store/sqlite-store.js';
import type { RecrawlSummary } from '../../src/revisit/recrawl.js';
import { suiteTmpDir } from '../helpers/tmp.js';
import type { PoissonPage } from '../helpers/poisson-server.js';
import { DAY, HOUR, revisitWorld, type RevisitWorld } from './recrawl-helpers.js';

/**
 * What one recrawl does with each kind of page, over 12 simulated days on the test clock: 304s,
 * pages whose only change is boilerplate, 404 and 410, a page that keeps failing, a page whose new
 * versions link to new pages, a page robots.txt disallows after the crawl; every check recorded.
 */
let world: RevisitWorld;
let summary: RecrawlSummary;
const T = (days: number) => world.start + days * DAY;
const pages = (): PoissonPage[] => [
  { path: '/keep', ratePerDay: 0 },
  { path: '/static', ratePerDay: 0, noValidators: true },
  { path: '/gone404', ratePerDay: 0.5, goneAt: Date.now() + 2 * DAY },
  { path: '/gone410', ratePerDay: 0.5, goneAt: Date.now() + 3 * DAY, goneStatus: 410 },
  { path: '/flaky', ratePerDay: 0, failFrom: Date.now() + 1 * DAY },
  { path: '/news', ratePerDay: 2, newLinks: true },
  { path: '/busy', ratePerDay: 1, noValidators: true },
  { path: '/private', ratePerDay: 1 },
  { path: '/dynamic', ratePerDay: 0.5, dynamicLastModified: true },
];

type Row = { url: string; outcome: string; status: number; at: number; saved_bytes: number; wire_bytes: number };

describe('recrawl outcomes', () => {
  const dir = suiteTmpDir();
  let checks: Row[];
  let crawlEnd: number;
  beforeAll(async () => {
    world = await revisitWorld(dir, pages(), {
      revisit: {
        classes: [
          { name: 'content', patterns: ['^http://poisson\\.test/[a-z0-9]+$'], initial_ms: 12 * HOUR, min_ms: 6 * HOUR, max_ms: 2 * DAY },
        ],
        budget_per_day: 40, min_checks: 3, max_failures: 3,
      },
    }, { seed: 5 });
    crawlEnd = world.clock.t;
    world.server.setRobots('User-agent: *\nDisallow: /private\n');
    const rc = world.recrawler();
    const events: string[] = [];
    rc.on('check', (e) => events.push(e.outcome));
    try {
      summary = await rc.runDue(world.clock.t + 12 * DAY);
    } finally {
      await rc.close();
    }
    expect(events.length).toBe(summary.checked);
    const db = openDatabase(world.db, { readonly: true });
    try {
      checks = db.prepare('SELECT u.url, c.* FROM checks c JOIN urls u ON u.id = c.url_id ORDER BY c.at, c.rowid').all() as Row[];
    } finally {
      db.close();
    }
  }, 60_000);
  afterAll(async () => world?.server.close());

  const of = (path: string) => checks.filter((c) => c.url === `http://poisson.test${path}`);
  const query = <R>(sql: string, ...args: unknown[]): R => {
    const db = openDatabase(world.db, { readonly: true });
    try {
      return db.prepare(sql).get(...args) as R;
    } finally {
      db.close();
    }
  };

  it('records every check: one row per revisit request the server saw', () => {
    const served = world.server.requests.filter((r) => r.at >= crawlEnd && r.path !== '/robots.txt');
    expect(checks.length).toBe(served.length);
    expect(summary.checked).toBe(checks.length);
    expect(summary.changed + summary.unchanged + summary.notModified + summary.deleted + summary.failed).toBe(summary.checked);
  });

  it('sends the stored validators and counts a 304 as unchanged, with the bytes it saved', () => {
    const keep = of('/keep');
    expect(keep.length).toBeGreaterThanOrEqual(5);
    expect(keep.every((c) => c.outcome === 'not_modified' && c.status === 304)).toBe(true);
    const stored = query<{ body_bytes: number }>("SELECT body_bytes FROM responses r JOIN urls u ON u.id = r.url_id WHERE u.url = 'http://poisson.test/keep'");
    expect(stored.body_bytes).toBeGreaterThan(100);
    expect(keep.every((c) => c.saved_bytes === stored.body_bytes)).toBe(true);
    const v = query<{ checks: number; changes: number }>("SELECT checks, changes FROM revisits v JOIN urls u ON u.id = v.url_id WHERE u.url = 'http://poisson.test/keep'");
    expect(v).toEqual({ checks: keep.length, changes: 0 });
    expect(world.server.requests.filter((r) => r.path === '/keep' && r.at >= crawlEnd).every((r) => r.ifNoneMatch !== null && r.ifModifiedSince !== null)).toBe(true);
    expect(summary.bytesSaved).toBe(checks.reduce((s, c) => s + c.saved_bytes, 0));
  });

  it('does not count a change of date and counter only', () => {
    const st = of('/static');
    expect(st.length).toBeGreaterThanOrEqual(5);
    expect(st.every((c) => c.outcome === 'unchanged' && c.status === 200)).toBe(true);
  });

  it('counts real changes, and only when the version changed between two checks (with and without validators)', () => {
    for (const path of ['/news', '/busy']) {
      const cs = of(path);
      expect(cs.filter((c) => c.outcome === 'changed').length).toBeGreaterThan(3);
      let prev = query<{ fetched_at: number }>('SELECT fetched_at FROM urls WHERE url = ?', `http://poisson.test${path}`).fetched_at;
      for (const c of cs) {
        const moved = world.server.versionAt(path, c.at) !== world.server.versionAt(path, prev);
        expect(c.outcome).toBe(moved ? 'changed' : c.status === 304 ? 'not_modified' : 'unchanged');
        prev = c.at;
      }
    }
    expect(of('/busy').every((c) => c.status === 200)).toBe(true);
  });

  it('enqueues the links new versions add (state QUEUED, for the next crawl)', () => {
    const n = query<{ n: number; queued: number }>(
      "SELECT COUNT(*) AS n, SUM(state = ?) AS queued FROM urls WHERE url LIKE 'http://poisson.test/new/news-%'", UrlState.QUEUED,
    );
    const changes = of('/news').filter((c) => c.outcome === 'changed').length;
    expect(n.n).toBe(changes);
    expect(n.queued).toBe(changes);
    expect(summary.newUrls).toBe(changes);
    const linked = query<{ n: number }>("SELECT COUNT(*) AS n FROM links l JOIN urls f ON f.id = l.from_id JOIN urls t ON t.id = l.to_id WHERE f.url = 'http://poisson.test/news' AND t.url LIKE '%/new/%'");
    expect(linked.n).toBe(changes);
  });

  it('marks a page deleted at once on 404 or 410 and removes its content', () => {
    for (const [path, status, at] of [['/gone404', 404, T(2)], ['/gone410', 410, T(3)]] as const) {
      const cs = of(path);
      const last = cs[cs.length - 1];
      expect(last).toMatchObject({ outcome: 'deleted', status });
      expect(cs.filter((c) => c.status >= 400)).toHaveLength(1);
      expect(last.at).toBeGreaterThanOrEqual(at);
      const u = query<{ id: number; note: string; content_hash: Buffer | null }>('SELECT id, note, content_hash FROM urls WHERE url = ?', `http://poisson.test${path}`);
      expect(u.note).toMatch(new RegExp(`^deleted on revisit .*HTTP ${status}`));
      expect(u.content_hash).toBeNull();
      expect(query<{ n: number }>('SELECT COUNT(*) AS n FROM responses WHERE url_id = ?', u.id).n).toBe(0);
      expect(query<{ deleted_at: number | null }>('SELECT deleted_at FROM revisits WHERE url_id = ?', u.id).deleted_at).toBe(last.at);
      // never asked again
      expect(world.server.requests.filter((r) => r.path === path && r.at > last.at)).toHaveLength(0);
    }
  });

  it('marks a page deleted after 3 failures in a row', () => {
    const failing = of('/flaky').filter((c) => c.status === 500);
    expect(failing.map((c) => c.outcome)).toEqual(['failed', 'failed', 'deleted']);
    const u = query<{ id: number; note: string }>("SELECT id, note FROM urls WHERE url = 'http://poisson.test/flaky'");
    expect(u.note).toMatch(/HTTP 500 \(3 failures in a row\)/);
    expect(query<{ n: number }>('SELECT COUNT(*) AS n FROM responses WHERE url_id = ?', u.id).n).toBe(0);
  });

  it('honours robots.txt: a page disallowed after the crawl is not fetched again', () => {
    expect(world.server.requests.filter((r) => r.path === '/private' && r.at >= crawlEnd)).toHaveLength(0);
    expect(of('/private')).toHaveLength(0);
    expect(summary.robotsSkipped).toBeGreaterThan(0);
  });

  it('enrolled every fetched page with its class, and keeps the next visit within the class bounds', () => {
    expect(summary.enrolled).toBe(pages().length + 1); // the home page and the pages
    const home = query<{ class: string }>("SELECT class FROM revisits v JOIN urls u ON u.id = v.url_id WHERE u.url = 'http://poisson.test/'");
    expect(home.class).toBe('home');
    const db = openDatabase(world.db, { readonly: true });
    try {
      const rows = db.prepare("SELECT v.next_at, v.last_check_at FROM revisits v JOIN urls u ON u.id = v.url_id WHERE v.class = 'content' AND v.deleted_at IS NULL AND v.checks > 0 AND u.url NOT LIKE '%/private'").all() as { next_at: number; last_check_at: number }[];
      expect(rows.length).toBeGreaterThan(2);
      for (const r of rows) {
        expect(r.next_at - r.last_check_at).toBeGreaterThanOrEqual(6 * HOUR);
        expect(r.next_at - r.last_check_at).toBeLessThanOrEqual(2 * DAY);
      }
    } finally {
      db.close();
    }
  });

  it('stats shows the revisit figures, in text and JSON', () => {
    const lines: string[] = [];
    runStats({ db: world.db, json: true }, { log: (s) => lines.push(s) });
    const j = JSON.parse(lines[0]) as { revisit: Record<string, number> };
    expect(j.revisit.checks).toBe(checks.length);
    expect(j.revisit.deleted).toBe(3);
    expect(j.revisit.changed).toBe(checks.filter((c) => c.outcome === 'changed').length);
    expect(j.revisit.notModifiedShare).toBeCloseTo(checks.filter((c) => c.outcome === 'not_modified').length / checks.length, 10);
    expect(j.revisit.bytesSaved).toBe(summary.bytesSaved);
    // changes over the last 7 days of checks, per day
    const last = checks[checks.length - 1].at;
    const recent = checks.filter((c) => c.outcome === 'changed' && c.at >= last - 7 * DAY).length;
    expect(j.revisit.changesPerDay).toBeCloseTo(recent / 7, 10);
    const text: string[] = [];
    runStats({ db: world.db }, { log: (s) => text.push(s) });
    expect(text[0]).toMatch(new RegExp(`revisit\\s+${pages().length + 1 - 3} pages scheduled, \\d+ due now, 3 deleted`));
    expect(text[0]).toMatch(/304 responses\s+\d+\.\d% of checks, \d+ bytes saved/);
  });

  it('believes Last-Modified while it agrees with the checks, and stops when it contradicts one', () => {
    type Lm = { changes: number; checks: number; lm_trusted: number; lm_changes: number; lm_age_ms: number; lm_unchanged_ms: number };
    const lm = (path: string) =>
      query<Lm>('SELECT v.* FROM revisits v JOIN urls u ON u.id = v.url_id WHERE u.url = ?', `http://poisson.test${path}`);
    // the time of the latest change: believed; each change's age is the check time minus that time
    const news = lm('/news');
    expect(news.changes).toBeGreaterThan(0);
    expect(news).toMatchObject({ lm_trusted: 1, lm_changes: news.changes });
    const changedAt = of('/news').filter((c) => c.outcome === 'changed').map((c) => c.at);
    const truth = world.server.changeTimes('/news');
    const expectedAge = changedAt.reduce((s, at) => s + (at - Math.floor(Math.max(...truth.filter((t) => t <= at)) / 1000) * 1000), 0);
    expect(news.lm_age_ms).toBe(expectedAge);
    // only 304s: believed, all its time watched without a change
    const keep = lm('/keep');
    expect(keep).toMatchObject({ lm_trusted: 1, lm_changes: 0 });
    expect(keep.lm_unchanged_ms).toBeGreaterThan(0);
    // no Last-Modified on a change, or one that moves while the text does not: not believed
    expect(lm('/busy').lm_trusted).toBe(0);
    expect(lm('/dynamic').lm_trusted).toBe(0);
  });
});
