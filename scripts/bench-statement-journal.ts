/**
 * SQLite's statement journal in the crawl's two multi-row writes that land all over the file, each
 * in the form the product used before and the one it uses now, on a crawl file made by the
 * product's own openDatabase (its schema, page size, WAL and cache settings, the content-hash
 * triggers of a crawl). A multi-row statement that may abort makes SQLite copy every page it
 * touches into a statement journal first, so that it can be undone alone:
 *
 * - the frontier's batched UPDATE of URL rows (FrontierStatements.updateMany), plain against
 *   `UPDATE OR FAIL`, on `--urls` rows, 64 random rows a statement;
 * - the links' INSERT (PageRowBatch.flushLinks), the upsert alone against `INSERT OR IGNORE` (with
 *   the upsert after it only when a real row was skipped), on a table of `--links` rows, 512 new
 *   links a statement (40 a page, random targets).
 *
 * Each part first checks that both forms leave the rows alike (with rows that conflict, for the
 * links), then alternates them, each round one transaction (as one group commit of the crawl, about
 * a second of it at 20,000 pages: 800 pages, 40 links and 35 known URLs changed a page) of
 * `--update-statements` or `--link-statements` statements, and compares the medians in the same run.
 *
 *   npx tsx scripts/bench-statement-journal.ts [--urls 150000] [--links 800000] [--update-statements 400] [--link-statements 60] [--rounds 10]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type Database from 'better-sqlite3';
import { ContentHashFilter } from '../src/store/content-hash-filter.js';
import { prepareStatements } from '../src/frontier/frontier-statements.js';
import { openDatabase } from '../src/store/open-database.js';
import { LINK_CHUNK, linkInsertNewSql, linkInsertSql } from '../src/store/page-row-batch.js';

const { values: a } = parseArgs({
  options: {
    urls: { type: 'string', default: '150000' }, links: { type: 'string', default: '800000' },
    'update-statements': { type: 'string', default: '400' }, 'link-statements': { type: 'string', default: '60' }, rounds: { type: 'string', default: '10' },
  },
});
const urls = Number(a.urls);
const links = Number(a.links);
const updateStatements = Number(a['update-statements']);
const linkStatements = Number(a['link-statements']);
const rounds = Number(a.rounds);
for (const [k, v] of Object.entries({ urls, links, 'update-statements': updateStatements, 'link-statements': linkStatements, rounds })) {
  if (!Number.isInteger(v) || v < 1) {
    console.error(`bench-statement-journal: --${k} must be a positive integer`);
    process.exit(2);
  }
}

let seed = 1;
const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff;
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1];

/** Times `write(form)` (one transaction of statements) for both forms in alternating rounds; per-row µs and their ratio. */
function alternate(db: Database.Database, rowsPerRound: number, forms: [string, string], write: (form: 0 | 1) => void) {
  const ms: [number[], number[]] = [[], []];
  const round = (form: 0 | 1) => {
    const t = process.hrtime.bigint();
    db.exec('BEGIN');
    write(form);
    db.exec('COMMIT');
    ms[form].push(Number(process.hrtime.bigint() - t) / 1e6);
  };
  for (let r = 0; r < rounds; r++) {
    // alternate which goes first, so that a drift of the machine favours neither
    if (r % 2 === 0) round(0), round(1);
    else round(1), round(0);
  }
  const perRow = (xs: number[]) => +((1000 * median(xs)) / rowsPerRound).toFixed(2);
  return {
    [`${forms[0]}_us_per_row`]: perRow(ms[0]),
    [`${forms[1]}_us_per_row`]: perRow(ms[1]),
    [`${forms[1]}_to_${forms[0]}`]: +(median(ms[1]) / median(ms[0])).toFixed(3),
    [`${forms[0]}_rounds_ms`]: ms[0].map((x) => +x.toFixed(1)),
    [`${forms[1]}_rounds_ms`]: ms[1].map((x) => +x.toFixed(1)),
  };
}

/** What `write` leaves in `table` (read in a transaction rolled back afterwards). */
function leaves(db: Database.Database, write: () => void, read: string): string {
  db.exec('BEGIN');
  try {
    write();
    return JSON.stringify(db.prepare(read).all());
  } finally {
    db.exec('ROLLBACK');
  }
}

function urlsUpdate(db: Database.Database) {
  db.prepare("INSERT INTO hosts (id, name) VALUES (1, 'example.org')").run();
  const insert = db.prepare(
    'INSERT INTO urls (id, hash, fp, url, host_id, state, depth, priority, life, seq, anchor, discovered_at) VALUES (?, ?, ?, ?, 1, 0, 2, ?, 3, ?, ?, 0)',
  );
  db.transaction(() => {
    for (let i = 1; i <= urls; i++) {
      const hash = Buffer.alloc(16);
      hash.writeUInt32BE(Math.imul(i, 2654435761) >>> 0, 0);
      insert.run(i, hash, hash.readUInt32BE(0), `http://example.org/section-${i % 97}/page-${i}.html`, (i % 1000) / 1000, i, 'an anchor text');
    }
  })();
  const ROWS = 64;
  const orFail = prepareStatements(db).updateMany(ROWS);
  const plain = db.prepare(orFail.source.replace('UPDATE OR FAIL urls', 'UPDATE urls'));
  if (plain.source === orFail.source) throw new Error('updateMany has no OR FAIL to take out');
  const probe: (number | null)[] = [];
  for (let r = 0; r < ROWS; r++) probe.push(1 + ((r * 7) % urls), r / ROWS, r % 2 ? null : 5, null, r % 3 ? 9 : null, 0.25);
  const read = 'SELECT id, priority, life, state, inlinks, inlink_score FROM urls ORDER BY id';
  const sameResult = leaves(db, () => plain.run(probe), read) === leaves(db, () => orFail.run(probe), read);
  if (!sameResult) throw new Error('the two forms of the UPDATE changed the rows differently');
  let changed = 0;
  const figures = alternate(db, updateStatements * ROWS, ['plain', 'or_fail'], (form) => {
    for (let s = 0; s < updateStatements; s++) {
      // distinct ids per statement (as foldChanges makes them): a stride from a random start
      const start = Math.floor(random() * urls);
      const params: (number | null)[] = [];
      for (let r = 0; r < ROWS; r++) params.push(1 + ((start + r * 2311) % urls), random(), 3, null, 1 + (s % 9), random());
      changed += (form === 0 ? plain : orFail).run(params).changes;
    }
  });
  if (changed === 0) throw new Error('no URL row was changed');
  return { rows_per_statement: ROWS, rows_changed: changed, same_result: sameResult, ...figures };
}

function linksInsert(db: Database.Database) {
  const one = db.prepare('INSERT OR IGNORE INTO links (from_id, to_id, anchor) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < links; i++) one.run(Math.floor(random() * 1e6), Math.floor(random() * 2e5), `anchor ${i % 13}`);
  })();
  const K = LINK_CHUNK;
  const upsert = db.prepare(linkInsertSql(K));
  const orIgnore = db.prepare(linkInsertNewSql(K));
  // as PageRowBatch.flushLinks writes a chunk of n real rows padded to K
  const now = (params: unknown[], n: number): number => {
    const inserted = orIgnore.run(params).changes;
    return inserted < n ? upsert.run(params).changes : inserted;
  };
  // a chunk with rows already in the file, a pair twice, empty anchors, and padding
  const probe: unknown[] = [];
  const taken = db.prepare('SELECT from_id, to_id FROM links LIMIT 20').all() as { from_id: number; to_id: number }[];
  for (const [i, t] of taken.entries()) probe.push(t.from_id, t.to_id, i % 3 ? `new ${i}` : '');
  for (let i = 0; i < 40; i++) probe.push(5e6, 7 + i, i % 4 ? `a${i % 5}` : '');
  probe.push(5e6, 7, 'again');
  const n = probe.length / 3;
  const last = probe.slice(-3);
  while (probe.length < K * 3) probe.push(...last);
  const read = 'SELECT from_id, to_id, anchor FROM links WHERE from_id >= 5000000 ORDER BY from_id, to_id';
  const readTaken = `SELECT from_id, to_id, anchor FROM links WHERE ${taken.map((t) => `(from_id = ${t.from_id} AND to_id = ${t.to_id})`).join(' OR ')} ORDER BY from_id, to_id`;
  const sameResult = leaves(db, () => upsert.run(probe), read) === leaves(db, () => now(probe, n), read)
    && leaves(db, () => upsert.run(probe), readTaken) === leaves(db, () => now(probe, n), readTaken);
  if (!sameResult) throw new Error('the two ways of inserting links left the rows differently');
  let from = 2e6;
  let inserted = 0;
  const figures = alternate(db, linkStatements * K, ['upsert', 'insert_or_ignore'], (form) => {
    for (let s = 0; s < linkStatements; s++) {
      const params: unknown[] = [];
      let page = 0;
      for (let i = 0; i < K; i++) {
        if (i % 40 === 0) page = from++;
        params.push(page, Math.floor(random() * 2e5), `anchor ${i % 13}`);
      }
      inserted += form === 0 ? upsert.run(params).changes : now(params, K);
    }
  });
  if (inserted === 0) throw new Error('no link was inserted');
  return { rows_per_statement: K, rows_in_table_before: links, rows_inserted: inserted, same_result: sameResult, ...figures };
}

const dir = mkdtempSync(join(tmpdir(), 'bench-statement-journal-'));
try {
  const db = openDatabase(join(dir, 'bench.db'));
  new ContentHashFilter(db).mayHold(new Uint8Array(16)); // the crawl's triggers on urls
  const out = { urls_update: urlsUpdate(db), links_insert: linksInsert(db) };
  db.close();
  console.log(JSON.stringify({
    command: `npx tsx scripts/bench-statement-journal.ts --urls ${urls} --links ${links} --update-statements ${updateStatements} --link-statements ${linkStatements} --rounds ${rounds}`,
    ...out,
  }, null, 2));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
