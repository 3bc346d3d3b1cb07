import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { TopicrawlError } from '../errors.js';
import { openDatabase, storeError } from './open-database.js';
import { mergeSegments } from './segment-merge.js';
import { readMeta } from './url-report.js';

/**
 * A crawl as the reports read it: one crawl file, or the segments of a distributed crawl. Each
 * worker of a distributed crawl writes its own crawl file (a segment) with the same schema, URL and
 * host ids given by the shared frontier (so one id is one URL in every segment), and meta
 * {@link SEGMENT_OF_KEY} = the crawl's id and {@link WORKER_KEY} = the worker's name. `stats`,
 * `export`, `explain` and evaluation read the segments merged (segment-merge.ts): nothing lost,
 * nothing counted twice.
 */

/** Meta key of a segment: the id of the distributed crawl it is part of. */
export const SEGMENT_OF_KEY = 'segment_of';
/** Meta key of a segment: the name of the worker that wrote it. */
export const WORKER_KEY = 'worker';

/** An open crawl: a read-only database to run the report queries on. */
export interface OpenCrawl {
  /** read-only: the crawl file itself, or a query-only temporary merge of the segments */
  db: Database.Database;
  /** the crawl files read, in merge order */
  paths: string[];
  /** the distributed crawl's id (meta segment_of), or null for a crawl file of a single process */
  crawlId: string | null;
  /** the workers' names (meta worker), in the order of `paths`; empty for a single file */
  workers: string[];
  close(): void;
}

/**
 * The crawl files named by `args`: each file as given, each folder expanded to the `*.db` files in
 * it (not its subfolders), in name order; a file named twice (or through a folder and by name) is
 * read once. E_USAGE for a path that does not exist, a folder without `*.db` files, or no path.
 */
export function crawlFilePaths(args: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (p: string) => {
    const real = realpathSync(p);
    if (!seen.has(real)) {
      seen.add(real);
      out.push(p);
    }
  };
  for (const arg of args) {
    if (!existsSync(arg)) throw new TopicrawlError('E_USAGE', `${arg}: no such crawl file`, { db: arg });
    if (!statSync(arg).isDirectory()) {
      add(arg);
      continue;
    }
    const files = readdirSync(arg, { withFileTypes: true })
      .filter((e) => e.name.endsWith('.db') && !e.isDirectory())
      .map((e) => e.name)
      .sort();
    if (files.length === 0) throw new TopicrawlError('E_USAGE', `${arg}: a folder without crawl files (*.db)`, { db: arg });
    for (const f of files) add(join(arg, f));
  }
  if (out.length === 0) throw new TopicrawlError('E_USAGE', 'name a crawl file, or the segments of a crawl (files or a folder)');
  return out;
}

/** A segment's identity, read from its meta; the file is checked as a crawl file on the way. */
function segmentIdentity(path: string): { crawlId: string | null; worker: string | null } {
  const db = openDatabase(path, { readonly: true });
  try {
    return { crawlId: readMeta(db, SEGMENT_OF_KEY), worker: readMeta(db, WORKER_KEY) };
  } finally {
    db.close();
  }
}

/**
 * Opens the crawl named by `args` (see {@link crawlFilePaths}) read-only. One file is opened as
 * it is (the same queries, the same figures as always). Several files must be segments of one
 * crawl: each a crawl file of the current schema, each with meta segment_of, all the same; else
 * E_USAGE naming the file. They are merged into a temporary database; the files are never written.
 * E_STORE when they cannot be merged (rows that contradict each other, e.g. one host under two ids).
 */
export function openCrawl(args: readonly string[]): OpenCrawl {
  const paths = crawlFilePaths(args);
  if (paths.length === 1) {
    const db = openDatabase(paths[0], { readonly: true });
    const crawlId = readMeta(db, SEGMENT_OF_KEY);
    const worker = readMeta(db, WORKER_KEY);
    return { db, paths, crawlId, workers: worker === null ? [] : [worker], close: () => db.close() };
  }
  const ids = paths.map(segmentIdentity);
  const first = ids[0].crawlId;
  ids.forEach((id, i) => {
    if (id.crawlId === null) {
      throw new TopicrawlError(
        'E_USAGE',
        `${paths[i]}: not a segment of a distributed crawl (no meta ${SEGMENT_OF_KEY}): give one crawl file, or the segments of one crawl`,
        { db: paths[i] },
      );
    }
    if (id.crawlId !== first) {
      throw new TopicrawlError('E_USAGE', `${paths[i]}: a segment of crawl "${id.crawlId}", not of "${first}" (${paths[0]}): give the segments of one crawl`, { db: paths[i] });
    }
  });
  let db: Database.Database;
  try {
    db = mergeSegments(paths);
  } catch (err) {
    // e.g. one host name under two ids: the files do not share the crawl's global ids
    throw storeError(paths.join(', '), err, 'cannot merge these segments (do they share the ids of one crawl?): ');
  }
  return { db, paths, crawlId: first, workers: ids.map((id) => id.worker ?? '?'), close: () => db.close() };
}

/** How a crawl is named in reports: the file, or "N segments of crawl ID (files)". */
export function crawlLabel(c: Pick<OpenCrawl, 'paths' | 'crawlId'>): string {
  if (c.paths.length === 1) return c.paths[0];
  return `${c.paths.length} segments of crawl ${c.crawlId} (${c.paths.join(', ')})`;
}
