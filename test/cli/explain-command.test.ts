import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExplain } from '../../src/cli/explain-command.js';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { STRATEGIES } from '../../src/strategy/registry.js';
import type { Strategy, StrategyConfig } from '../../src/strategy/strategy.js';
import type { TopicInput } from '../../src/topic/topic-schema.js';
import { crawlCorpus, repoRoot } from '../helpers/crawl-corpus.js';
import { runCli } from '../helpers/run-cli.js';
import { suiteTmpDir } from '../helpers/tmp.js';

/**
 * `topicrawl explain`: crawl files made by the real crawl loop on corpora/tobacco-demo, explained by
 * the real bin; every figure checked against the database or recombined from the printed parts.
 */
const corpusDir = join(repoRoot, 'corpora/tobacco-demo');
const tobacco = parse(readFileSync(join(repoRoot, 'topics/tobacco.yaml'), 'utf8')) as TopicInput;
const topic = (strategy: string, maxPages = 25): TopicInput => ({
  ...tobacco,
  strategy: { ...tobacco.strategy, name: strategy },
  politeness: { ...tobacco.politeness, delay_ms: 0, concurrency: 1 },
  limits: { ...tobacco.limits, max_pages: maxPages },
});

type Row = { id: number; url: string; state: number; priority: number; life: number; parent_id: number | null; inlinks: number; inlink_score: number };

function query<T>(db: string, sql: string, ...params: unknown[]): T[] {
  const conn = openDatabase(db, { readonly: true });
  try {
    return conn.prepare(sql).all(...params) as T[];
  } finally {
    conn.close();
  }
}

/** A fetched URL found from a parent, and the most linked queued URL. */
function pick(db: string): { fetched: Row; queued: Row } {
  const cols = 'id, url, state, priority, life, parent_id, inlinks, inlink_score';
  const [fetched] = query<Row>(db, `SELECT ${cols} FROM urls WHERE state = 2 AND parent_id IS NOT NULL ORDER BY inlinks DESC, id LIMIT 1`);
  const [queued] = query<Row>(db, `SELECT ${cols} FROM urls WHERE state = 0 ORDER BY inlinks DESC, id LIMIT 1`);
  expect(fetched).toBeDefined();
  expect(queued).toBeDefined();
  return { fetched, queued };
}

/** The printed terms of I(p): value and weight of IB, IL, ID, and the printed sum. */
function terms(stdout: string) {
  const term = (name: string) => {
    const m = stdout.match(new RegExp(`^ {2}${name} +(\\S+) +× [xyz] (\\S+)`, 'm'));
    expect(m, `${name} line in:\n${stdout}`).not.toBeNull();
    return { value: Number(m![1]), weight: Number(m![2]) };
  };
  const sum = stdout.match(/^ {2}I\(p\) +(\S+)/m);
  // best-first's priority is I(p) × the yield factor of the URL's directory, printed when it is not 1
  const factor = stdout.match(/× directory yield factor (\S+)/);
  return { ib: term('IB'), il: term('IL'), id: term('ID'), sum: Number(sum![1]), factor: factor ? Number(factor[1]) : 1 };
}

function checkParentAndAnchors(db: string, row: Row, stdout: string) {
  const [parent] = query<{ url: string; relevance: number }>(db, 'SELECT url, relevance FROM urls WHERE id = ?', row.parent_id);
  const parentLine = stdout.split('\n').find((l) => l.startsWith('parent '))!;
  expect(parentLine).toContain(parent.url);
  expect(parentLine).toContain(`relevance ${Number(parent.relevance.toFixed(6))}`);
  const links = query<{ url: string; anchor: string }>(db, 'SELECT u.url, l.anchor FROM links l JOIN urls u ON u.id = l.from_id WHERE l.to_id = ?', row.id);
  expect(links.length).toBeGreaterThan(0);
  expect(stdout).toContain(`anchors          ${links.length} link`);
  for (const l of links.slice(0, 20)) expect(stdout).toContain(`${JSON.stringify(l.anchor)} from ${l.url}\n`);
}

const expectOneLine = (stderr: string) => {
  expect(stderr.trim().split('\n')).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
};

/** The stdout of a run that must succeed. */
const r0 = (r: { code: number | null; stdout: string; stderr: string }) => {
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};

describe('topicrawl explain', () => {
  const dir = suiteTmpDir();
  const dbs: Record<string, string> = {};
  beforeAll(async () => {
    for (const s of ['best-first', 'best-first-fish', 'breadth-first']) {
      dbs[s] = join(dir, `${s}.db`);
      await crawlCorpus(corpusDir, topic(s), dbs[s]);
    }
  }, 120_000);

  it('best-first: IB, IL, ID recombine with x, y, z to the stored priority, fetched and queued', async () => {
    const db = dbs['best-first'];
    for (const row of Object.values(pick(db))) {
      // given with an upper-case host and a tracking parameter: normalised like the crawl does
      const given = `${row.url.replace('http://www.', 'http://WWW.')}${row.url.includes('?') ? '&' : '?'}utm_source=x`;
      const r = await runCli(['explain', db, given]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`url              ${row.url}  (given as ${given})`);
      expect(r.stdout).toContain(`state            ${row.state === 2 ? 'fetched' : 'queued'}`);
      expect(r.stdout).toContain(`priority         ${Number(row.priority.toFixed(6))} (now)`);
      const t = terms(r.stdout);
      const recombined = t.ib.weight * t.ib.value + t.il.weight * t.il.value + t.id.weight * t.id.value;
      expect(recombined).toBeCloseTo(t.sum, 5);
      expect(t.ib.value).toBeCloseTo(Math.min(1, row.inlink_score), 5);
      if (row.state === 0) {
        // a queued URL's priority follows its directory's factor exactly
        expect(recombined * t.factor).toBeCloseTo(row.priority, 5);
        expect(r.stdout).toContain('= the stored priority');
      }
      expect(r.stdout).toContain(`inlinks          ${row.inlinks} `);
      checkParentAndAnchors(db, row, r.stdout);
    }
  });

  it('best-first-fish: life and max_life, parent and anchors; --json has the same content exactly', async () => {
    const db = dbs['best-first-fish'];
    const { fetched, queued } = pick(db);
    for (const row of [fetched, queued]) {
      const r = await runCli(['explain', db, row.url]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`life             ${row.life} (max_life ${tobacco.strategy!.max_life})`);
      expect(r.stdout).toContain('strategy best-first-fish');
      checkParentAndAnchors(db, row, r.stdout);
    }
    const j = await runCli(['explain', db, queued.url, '--json']);
    expect(j.code).toBe(0);
    const e = JSON.parse(j.stdout);
    expect(e).toMatchObject({ url: queued.url, id: queued.id, state: 'queued', priority: queued.priority, life: queued.life, inlinks: queued.inlinks });
    const i = e.importance;
    expect((i.x * i.ib + i.y * i.il + i.z * i.id) * i.factor).toBeCloseTo(queued.priority, 12);
    expect(i.matchesStored).toBe(true);
    const [parent] = query<{ url: string }>(db, 'SELECT url FROM urls WHERE id = ?', queued.parent_id);
    expect(e.parent.url).toBe(parent.url);
    const links = query<{ anchor: string }>(db, 'SELECT anchor FROM links WHERE to_id = ?', queued.id);
    expect((e.anchors as { anchor: string }[]).map((a) => a.anchor).sort()).toEqual(links.map((l) => l.anchor).sort());
    // a crawl that was never revisited: no revisit section
    expect(e.revisit).toBeNull();
    expect(r0(await runCli(['explain', db, fetched.url]))).not.toContain('revisit (class');
  });

  it('says when the stored priority is not I(p) (breadth-first)', async () => {
    const db = dbs['breadth-first'];
    const { queued } = pick(db);
    const r = await runCli(['explain', db, queued.url]);
    expect(r.code).toBe(0);
    const t = terms(r.stdout);
    expect(Math.abs(t.sum - queued.priority)).toBeGreaterThan(1e-3);
    expect(r.stdout).toContain(`≠ the stored priority ${queued.priority}`);
    expect(r.stdout).toContain('strategy breadth-first does not set the priority to I(p)');
  });

  it('shows the error and note recorded with a URL\'s outcome (text and --json), and none when there are none', async () => {
    const db = dbs['breadth-first'];
    // breadth-first reaches a URL that robots.txt disallows: recorded as skipped, with an error and a note
    const rows = query<{ url: string; error: string | null; note: string | null }>(db, 'SELECT url, error, note FROM urls WHERE error IS NOT NULL AND note IS NOT NULL ORDER BY id');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const text = r0(await runCli(['explain', db, row.url]));
      expect(text).toContain(`\nerror            ${row.error}\n`);
      expect(text).toContain(`\nnote             ${row.note}\n`);
      const e = JSON.parse(r0(await runCli(['explain', db, row.url, '--json'])));
      expect({ error: e.error, note: e.note }).toEqual({ error: row.error, note: row.note });
    }
    const [clean] = query<{ url: string }>(db, 'SELECT url FROM urls WHERE state = 2 AND error IS NULL AND note IS NULL ORDER BY id LIMIT 1');
    const text = r0(await runCli(['explain', db, clean.url]));
    expect(text).not.toMatch(/^(error|note) /m);
    expect(JSON.parse(r0(await runCli(['explain', db, clean.url, '--json'])))).toMatchObject({ error: null, note: null });
  });

  it('an unknown URL, a missing file, a file that is no crawl: one line, exit code 2', async () => {
    const unknown = await runCli(['explain', dbs['best-first'], 'http://www.tobacco-info.example/no-such-page.html']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expectOneLine(unknown.stderr);
    expect(unknown.stderr).toContain('no-such-page.html: not known to the crawl');

    const missing = await runCli(['explain', join(dir, 'nope.db'), 'http://a.example/']);
    expect(missing.code).toBe(2);
    expectOneLine(missing.stderr);
    expect(missing.stderr).toContain('nope.db: no such crawl file');

    const notDb = join(dir, 'not-a-crawl.db');
    writeFileSync(notDb, 'hello');
    const foreign = await runCli(['explain', notDb, 'http://a.example/']);
    expect(foreign.code).toBe(2);
    expectOneLine(foreign.stderr);
    expect(foreign.stderr).toContain('not-a-crawl.db');

    const badUrl = await runCli(['explain', dbs['best-first'], 'ftp://a.example/']);
    expect(badUrl.code).toBe(2);
    expectOneLine(badUrl.stderr);
  });
});

/**
 * A strategy with per-URL state, registered for this test only: it counts, per URL, the fetched
 * pages linking to it. The explaining instance is a fresh one, so its figures can only come from
 * replaying the store through resume().
 */
const FAKE = 'test-replay-counter';
function createReplayCounter(cfg: StrategyConfig): Strategy {
  let linked = new Uint32Array(1024);
  let replayed = 0;
  const count = (ids: number[]) => {
    for (const id of ids) {
      if (id >= linked.length) {
        const grown = new Uint32Array(Math.max(id + 1, linked.length * 2));
        grown.set(linked);
        linked = grown;
      }
      linked[id]++;
    }
  };
  return {
    name: FAKE,
    seed: () => ({ priority: 1, life: cfg.max_life }),
    onPageFetched: (_page, links) => links.map((l) => (l.known ? null : { priority: 1 / (1 + l.depth), life: cfg.max_life })),
    resume(state) {
      for (const h of state.history()) {
        replayed++;
        count(h.outlinks);
      }
    },
    explain: (id) => (replayed === 0 ? null : { 'linked from': linked[id] ?? 0, 'pages replayed': replayed, kind: 'fake' }),
  };
}

describe('topicrawl explain with a strategy that explains itself', () => {
  const dir = suiteTmpDir();
  beforeAll(() => {
    STRATEGIES[FAKE] = { description: 'test only', create: createReplayCounter };
  });
  afterAll(() => {
    delete STRATEGIES[FAKE];
  });

  it('rebuilds it, replays the store into it and prints every figure of explain()', async () => {
    const db = join(dir, 'fake.db');
    await crawlCorpus(corpusDir, topic(FAKE, 15), db);
    const [target] = query<{ id: number; url: string; n: number }>(
      db,
      `SELECT u.id, u.url, COUNT(*) AS n FROM links l JOIN urls u ON u.id = l.to_id GROUP BY u.id ORDER BY n DESC, u.id LIMIT 1`,
    );
    const [{ fetched }] = query<{ fetched: number }>(db, 'SELECT COUNT(*) AS fetched FROM urls WHERE fetch_seq IS NOT NULL');
    expect(target.n).toBeGreaterThan(1);
    const lines: string[] = [];
    runExplain({ db, url: target.url }, { log: (s) => lines.push(s) });
    const text = lines.join('\n');
    expect(text).toContain(`strategy ${FAKE} (after replaying ${fetched} fetched pages):`);
    expect(text).toMatch(new RegExp(`^  linked from\\s+${target.n}$`, 'm'));
    expect(text).toMatch(new RegExp(`^  pages replayed\\s+${fetched}$`, 'm'));
    expect(text).toMatch(/^ {2}kind\s+fake$/m);
    // not I(p): the note says so
    expect(text).toContain(`strategy ${FAKE} does not set the priority to I(p)`);

    const json: string[] = [];
    runExplain({ db, url: target.url, json: true }, { log: (s) => json.push(s) });
    expect(JSON.parse(json.join('\n')).strategy).toEqual({
      name: FAKE, hasExplain: true, replayedPages: fetched, figures: { 'linked from': target.n, 'pages replayed': fetched, kind: 'fake' }, error: null,
    });
  });
});
