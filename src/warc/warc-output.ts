import { createHash } from 'node:crypto';
import { TopicrawlError } from '../errors.js';
import { openDatabase } from '../store/sqlite-store.js';
import { storedResponse } from '../store/warc-source.js';
import type { Config } from '../topic/config.js';
import { WarcFileWriter } from './warc-file-writer.js';
import { WarcHook, type StoredCopy } from './warc-hook.js';
import { DEFAULT_WARC_MAX_BYTES } from './warc-options.js';
import { WarcOriginals } from './warc-originals.js';
import { warcDate } from './warc-records.js';

/** The WARC flags of crawl, recrawl and export. */
export interface WarcFlags {
  dir: string;
  maxBytes?: number;
}

/** A WARC output for a run: the hook to pass to the crawler or recrawler, and how to close it. */
export interface WarcOutput {
  hook: WarcHook;
  writer: WarcFileWriter;
  close(): Promise<void>;
}

/** A name usable in a file name: letters, digits, `.`, `_`, `-` (others become `_`). */
export function fileToken(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || '_';
}

/** `--warc-max-bytes`: a whole number of bytes, at least 1 MB (E_USAGE otherwise). */
export function checkMaxBytes(n: number | undefined): number {
  if (n === undefined) return DEFAULT_WARC_MAX_BYTES;
  if (!Number.isInteger(n) || n < 1_000_000) throw new TopicrawlError('E_USAGE', `--warc-max-bytes ${n}: give a whole number of bytes, at least 1000000`);
  return n;
}

function info(config: Config, what: string): Record<string, string> {
  return {
    description: `${what}: topic ${config.name}, strategy ${config.strategy.name}`,
    robots: config.politeness.robots ? 'obey' : 'ignore',
    'http-header-user-agent': config.politeness.user_agent,
  };
}

/**
 * The WARC output of a crawl (`crawl --warc DIR`): the folder and its first file are created now
 * (E_WARC if they cannot be). `worker`: "0" for one process, a worker's own name in a shared crawl.
 */
export async function openCrawlWarc(flags: WarcFlags, config: Config, crawl: string, worker: string): Promise<WarcOutput> {
  const writer = new WarcFileWriter({ dir: flags.dir, maxBytes: checkMaxBytes(flags.maxBytes), crawl: fileToken(crawl), worker: fileToken(worker), info: info(config, 'crawl') });
  await writer.open();
  const hook = new WarcHook(writer, { mode: 'crawl', strategy: config.strategy.name });
  return { hook, writer, close: () => writer.close() };
}

/**
 * The WARC output of a recrawl (`recrawl --warc DIR`): revisit records refer to the latest response
 * record of their URL in DIR (an earlier `--warc` crawl or recrawl into the same folder), else to the
 * crawl file's stored copy (its URI and fetch time, no record id).
 */
export async function openRecrawlWarc(flags: WarcFlags, config: Config, dbPath: string, crawl: string): Promise<WarcOutput> {
  const writer = new WarcFileWriter({ dir: flags.dir, maxBytes: checkMaxBytes(flags.maxBytes), crawl: fileToken(crawl), worker: 'revisit', info: info(config, 'recrawl') });
  const originals = new WarcOriginals(flags.dir).load();
  await writer.open();
  let db: ReturnType<typeof openDatabase>;
  try {
    db = openDatabase(dbPath, { readonly: true });
  } catch (err) {
    await writer.close();
    throw err;
  }
  const stored = (urlId: number): StoredCopy | null => {
    const r = storedResponse(db, urlId);
    if (!r) return null;
    return { original: { url: r.url, date: warcDate(r.fetchedAt) }, bodySha256: createHash('sha256').update(r.body).digest('hex') };
  };
  const hook = new WarcHook(writer, { mode: 'recrawl', strategy: config.strategy.name, originals, stored });
  return {
    hook, writer,
    close: async () => {
      try {
        await writer.close();
      } finally {
        db.close();
      }
    },
  };
}
