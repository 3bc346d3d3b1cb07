import { basename } from 'node:path';
import { crawlFilePaths, openCrawl, SEGMENT_OF_KEY } from '../store/segments.js';
import { readMeta } from '../store/url-report.js';
import { storedResponses, type StoredResponse } from '../store/warc-source.js';
import { serialize, WarcFileWriter } from './warc-file-writer.js';
import { fileToken, checkMaxBytes, type WarcFlags } from './warc-output.js';
import { metadataRecord, rebuiltResponseRecord, warcDate } from './warc-records.js';

/** What an export wrote. */
export interface WarcExport {
  records: number;
  files: string[];
}

/**
 * `topicrawl export <db..> --format warc --out DIR`: a crawl made without --warc, as WARC files. Each
 * stored response becomes a `response` record rebuilt from the crawl file (the status code, the
 * headers as the fetcher gave them: lower-cased names, repeats joined; the body decoded, with
 * Content-Encoding / Transfer-Encoding / Content-Length renamed X-Crawler-* and a Content-Length of
 * the stored body added) and a `metadata` record with topicrawl's facts. Every record names, in
 * WARC-Warcinfo-ID, its file's warcinfo, which says that the records are reconstructed.
 * Each crawl file (or segment) is written by its own writer (files named by its crawl and worker).
 */
export async function exportWarc(dbs: readonly string[], flags: WarcFlags): Promise<WarcExport> {
  const maxBytes = checkMaxBytes(flags.maxBytes);
  const out: WarcExport = { records: 0, files: [] };
  for (const path of crawlFilePaths(dbs)) {
    const crawl = openCrawl([path]);
    const db = crawl.db;
    try {
      const name = readMeta(db, SEGMENT_OF_KEY) ?? readMeta(db, 'topic') ?? basename(path).replace(/\.db$/, '');
      // a segment is named as the crawl named its WARC files: by its file (worker-1, …), not its worker's host:pid
      const worker = readMeta(db, SEGMENT_OF_KEY) !== null ? basename(path).replace(/\.db$/, '') : '0';
      const strategy = readMeta(db, 'strategy') ?? undefined;
      const writer = new WarcFileWriter({
        dir: flags.dir, maxBytes, crawl: fileToken(name), worker: `${fileToken(worker)}-export`,
        info: {
          description: `reconstructed: response records rebuilt by topicrawl export from the crawl file ${basename(path)}, not the bytes received`,
          'topicrawl-reconstructed': 'true; HTTP status line rebuilt (code and a standard reason phrase); header names lower-cased and repeated fields joined as stored; body decoded (Content-Encoding, Transfer-Encoding, Content-Length renamed X-Crawler-*); no request records',
        },
      });
      await writer.open();
      try {
        for (const r of storedResponses(db)) {
          const wid = await writer.prepare(r.body.length + r.body.length / 64 + JSON.stringify(r.headers).length + 4096);
          const facts = { url: r.url, date: warcDate(r.fetchedAt), warcinfoId: wid };
          const resp = rebuiltResponseRecord(facts, r.status, r.headers, r.body);
          const id = resp.warcHeaders.headers.get('WARC-Record-ID') ?? null;
          const meta = metadataRecord(facts, id, exportFields(r, strategy));
          await writer.append([await serialize(resp), await serialize(meta)]);
          out.records += 2;
        }
      } finally {
        await writer.close();
      }
      out.files.push(...writer.files);
    } finally {
      crawl.close();
    }
  }
  return out;
}

function exportFields(r: StoredResponse, strategy: string | undefined): [string, string][] {
  const f: [string, string][] = [];
  if (r.relevance !== null) f.push(['relevance', String(r.relevance)]);
  if (r.relevant !== null) f.push(['relevant', String(r.relevant)]);
  if (r.priority !== null) f.push(['priority', String(r.priority)]);
  if (strategy) f.push(['strategy', strategy]);
  f.push(['depth', String(r.depth)]);
  if (r.fetchSeq !== null) f.push(['fetch-seq', String(r.fetchSeq)]);
  f.push(['reconstructed', 'true']);
  return f;
}
