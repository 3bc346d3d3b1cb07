/**
 * The frontier's batched UPDATE of URL rows (FrontierStatements.updateMany) with and without
 * `OR FAIL`, on a crawl file made by the product's own openDatabase (its schema, page size, WAL
 * and cache settings, the content-hash triggers of a crawl) holding `--urls` URL rows. A statement
 * that changes many rows and may abort makes SQLite copy each page it touches into a statement
 * journal first; OR FAIL needs none. Rounds alternate the two forms, each round one transaction of
 * `--statements` statements of 64 random rows (as a crawl's intake changes known URLs anywhere in
 * the file), and the medians are compared in the same run.
 *
 *   npx tsx scripts/bench-update-journal.ts [--urls 150000] [--statements 400] [--rounds 10]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ContentHashFilter } from '../src/store/content-hash-filter.js';
import { prepareStatements } from '../src/frontier/frontier-statements.js';
import { openDatabase } from '../src/store/open-database.js';

const { values: a } = parseArgs({
  options: { urls: { type: 'string', default: '150000' }, statements: { type: 'string', default: '400' }, rounds: { type: 'string', default: '10' } },
});
const urls = Number(a.urls);
const statements = Number(a.statements);
const rounds = Number(a.rounds);
for (const [k, v] of Object.entries({ urls, statements, rounds })) {
  if (!Number.isInteger(v) || v < 1) {
    console.error(`bench-update-journal: --${k} must be a positive integer`);
    process.exit(2);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'bench-update-journal-'));
try {
  const db = openDatabase(join(dir, 'bench.db'));
  new ContentHashFilter(db).mayHold(new Uint8Array(16)); // the crawl's triggers on urls
  db.prepare("INSERT INTO hosts (id, name) VALUES (1, 'example.org')").run();
  const insert = db.prepare(
    'INSERT INTO urls (id, hash, fp, url, host_id, state, depth, priority, life, seq, anchor, discovered_at) VALUES (?, ?, ?, ?, 1, 0, 2, ?, 3, ?, ?, 0)',
  );
  db.transaction(() => {
    for (let i = 1; i <= urls; i++) {
      const hash = Buffer.alloc(16);
      hash.writeUInt32BE(i * 2654435761 >>> 0, 0);
      insert.run(i, hash, hash.readUInt32BE(0), `http://example.org/section-${i % 97}/page-${i}.html`, (i % 1000) / 1000, i, 'an anchor text');
    }
  })();
  const ROWS = 64;
  const orFail = prepareStatements(db).updateMany(ROWS);
  const plain = db.prepare(orFail.source.replace('UPDATE OR FAIL urls', 'UPDATE urls'));
  if (plain.source === orFail.source) throw new Error('updateMany has no OR FAIL to take out');
  let seed = 1;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff;
  let changed = 0;
  const round = (st: typeof plain): number => {
    const t = process.hrtime.bigint();
    db.exec('BEGIN');
    for (let s = 0; s < statements; s++) {
      // distinct ids per statement (as foldChanges makes them): a stride from a random start
      const start = Math.floor(random() * urls);
      const params: (number | null)[] = [];
      for (let r = 0; r < ROWS; r++) params.push(1 + ((start + r * 2311) % urls), random(), 3, null, 1 + (s % 9), random());
      changed += st.run(params).changes;
    }
    db.exec('COMMIT');
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
  // both forms change the rows alike (each run in a transaction rolled back after the rows are read)
  const probe: (number | null)[] = [];
  for (let r = 0; r < ROWS; r++) probe.push(1 + r * 7, r / ROWS, r % 2 ? null : 5, null, r % 3 ? 9 : null, 0.25);
  const read = db.prepare(`SELECT id, priority, life, state, inlinks, inlink_score FROM urls WHERE id IN (${Array.from({ length: ROWS }, (_, r) => 1 + r * 7).join(',')}) ORDER BY id`);
  const after = (st: typeof plain): string => {
    db.exec('BEGIN');
    try {
      st.run(probe);
      return JSON.stringify(read.all());
    } finally {
      db.exec('ROLLBACK');
    }
  };
  const sameResult = after(plain) === after(orFail);
  if (!sameResult) throw new Error('the two forms of the UPDATE changed the rows differently');
  const ms = { plain: [] as number[], orFail: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    // alternate which goes first, so that a drift of the machine favours neither
    if (r % 2 === 0) ms.plain.push(round(plain)), ms.orFail.push(round(orFail));
    else ms.orFail.push(round(orFail)), ms.plain.push(round(plain));
  }
  db.close();
  if (changed === 0) throw new Error('no row was changed');
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  const perRow = (xs: number[]) => +((1000 * median(xs)) / (statements * ROWS)).toFixed(2);
  console.log(JSON.stringify({
    command: `npx tsx scripts/bench-update-journal.ts --urls ${urls} --statements ${statements} --rounds ${rounds}`,
    rows_per_statement: ROWS,
    rows_changed: changed,
    same_result: sameResult,
    plain_us_per_row: perRow(ms.plain),
    or_fail_us_per_row: perRow(ms.orFail),
    or_fail_to_plain: +(median(ms.orFail) / median(ms.plain)).toFixed(3),
    plain_rounds_ms: ms.plain.map((x) => +x.toFixed(1)),
    or_fail_rounds_ms: ms.orFail.map((x) => +x.toFixed(1)),
  }, null, 2));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
