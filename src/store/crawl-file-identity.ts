import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { TopicrawlError } from '../errors.js';

/**
 * SQLite's `PRAGMA application_id` of a topicrawl crawl file ("TCRW"), set when the file is created
 * and read (from the file's header) before it is opened for anything else.
 */
export const APPLICATION_ID = 0x54435257;

/**
 * What is at a crawl file's path, judged before anything is written to it or deleted:
 * - `absent`: nothing; `empty`: a file of 0 bytes (both fine to create a crawl file in);
 * - `topicrawl`: a SQLite database with our application id;
 * - `sqlite`: a SQLite database without an application id: a topicrawl file written before the id
 *   existed if it has our `meta` table (the caller checks with SQL), an empty database if it has no
 *   tables, else another application's.
 *
 * Anything else (a text file, a topic file, a folder, a database of another application) is
 * refused with `E_USAGE`: topicrawl never writes into, nor deletes, a file that is not its own.
 */
export type CrawlFileKind = 'absent' | 'empty' | 'topicrawl' | 'sqlite';

const MAGIC = 'SQLite format 3\0';

/** `forWrite`: the message says that the file is left alone (crawl, recrawl, eval, tune). */
export function inspectCrawlFile(path: string, forWrite = false): CrawlFileKind {
  let size: number;
  try {
    const st = statSync(path);
    if (st.isDirectory()) throw notOurs(path, 'it is a folder', forWrite);
    if (!st.isFile()) throw notOurs(path, 'it is not a regular file', forWrite);
    size = st.size;
  } catch (err) {
    if (err instanceof TopicrawlError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw new TopicrawlError('E_STORE', `${path}: cannot read the crawl file: ${(err as Error).message}`, { path }, { cause: err });
  }
  if (size === 0) return 'empty';
  const head = Buffer.alloc(100);
  const fd = openSync(path, 'r');
  let n: number;
  try {
    n = readSync(fd, head, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (n < 100 || head.toString('latin1', 0, 16) !== MAGIC) throw notOurs(path, 'it is not an SQLite database', forWrite);
  const id = head.readInt32BE(68);
  if (id === APPLICATION_ID) return 'topicrawl';
  if (id !== 0) throw notOurs(path, `it is the SQLite database of another application (application_id 0x${(id >>> 0).toString(16)})`, forWrite);
  return 'sqlite';
}

/** The error for a path that holds something that is not a topicrawl crawl file. */
export function notOurs(path: string, why: string, forWrite: boolean): TopicrawlError {
  const tail = forWrite ? '; topicrawl neither writes into nor deletes it: choose another crawl file' : '';
  return new TopicrawlError('E_USAGE', `${path}: not a topicrawl crawl file (${why})${tail}`, { path, reason: why });
}
