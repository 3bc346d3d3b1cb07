import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { WARCParser } from 'warcio';
import type { Original } from './warc-records.js';

/** Where a response record of a URL is: from a CDXJ line, or written in this run. */
interface Entry {
  url: string;
  timestamp: string;
  file: string;
  offset: number;
  length: number;
  digest?: string;
  /** Known without reading the record (written in this run). */
  original?: Original;
}

/**
 * The latest `response` record of each URL in a WARC folder, for revisit records: read from the
 * CDXJ indexes beside the WARC files at start, and kept up to date with the responses written since.
 * The original's exact WARC-Date and WARC-Record-ID are read from the record itself when asked
 * (the CDXJ line has the date to the second only, and no id).
 */
export class WarcOriginals {
  private readonly byUrl = new Map<string, Entry>();

  constructor(private readonly dir: string) {}

  /** Reads every `*.cdxj` of the folder (response records only; revisits are not originals). */
  load(): this {
    if (!existsSync(this.dir)) return this;
    for (const name of readdirSync(this.dir).filter((n) => n.endsWith('.cdxj')).sort()) {
      for (const line of readFileSync(join(this.dir, name), 'utf8').split('\n')) {
        const e = parseCdxjLine(line);
        if (!e || e.mime === 'warc/revisit' || !e.filename) continue;
        const prev = this.byUrl.get(e.url);
        if (prev && prev.timestamp > e.timestamp) continue;
        this.byUrl.set(e.url, { url: e.url, timestamp: e.timestamp, file: e.filename, offset: Number(e.offset), length: Number(e.length), digest: e.digest ? `sha256:${e.digest}` : undefined });
      }
    }
    return this;
  }

  /** A response record written now becomes the URL's original. */
  written(original: Original, file: string, offset: number, length: number): void {
    this.byUrl.set(original.url, { url: original.url, timestamp: original.date, file, offset, length, digest: original.digest, original });
  }

  /** The URL's latest response record, or null when none is in the folder. */
  async lookup(url: string): Promise<Original | null> {
    const e = this.byUrl.get(url);
    if (!e) return null;
    if (!e.original) e.original = await readOriginal(join(this.dir, e.file), e);
    return e.original;
  }
}

/** One CDXJ line: `urlkey timestamp {json}`; null for a blank or broken line. */
export function parseCdxjLine(line: string): { urlkey: string; timestamp: string; url: string; mime?: string; digest?: string; offset: string; length: string; filename: string; status?: string } | null {
  const m = /^(\S+) (\d+) (\{.*\})\s*$/.exec(line);
  if (!m) return null;
  try {
    const j = JSON.parse(m[3]) as Record<string, string>;
    return { urlkey: m[1], timestamp: m[2], url: j.url, mime: j.mime, digest: j.digest, offset: j.offset, length: j.length, filename: j.filename, status: j.status };
  } catch {
    return null;
  }
}

/** Reads the WARC headers of the record at e.offset (one gzip member of e.length bytes) with warcio's parser. */
async function readOriginal(path: string, e: Entry): Promise<Original> {
  const buf = Buffer.alloc(e.length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buf, 0, e.length, e.offset);
  } finally {
    closeSync(fd);
  }
  const rec = await new WARCParser([buf]).parse();
  const h = rec?.warcHeaders.headers;
  return { url: h?.get('WARC-Target-URI') ?? e.url, date: h?.get('WARC-Date') ?? e.timestamp, recordId: h?.get('WARC-Record-ID') ?? undefined, digest: h?.get('WARC-Payload-Digest') ?? e.digest };
}
