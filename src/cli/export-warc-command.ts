import { basename } from 'node:path';
import { exportWarc, type WarcExport } from '../warc/warc-export.js';

/** `topicrawl export <db..> --format warc [--out DIR] [--warc-max-bytes N]`: prints what it wrote. */
export async function runExportWarc(args: { db: readonly string[]; out?: string; maxBytes?: number }, out: { log: (s: string) => void }): Promise<WarcExport> {
  const dir = args.out ?? `${basename(args.db[0]).replace(/\.db$/, '').replace(/\/+$/, '')}-warc`;
  const r = await exportWarc(args.db, { dir, maxBytes: args.maxBytes });
  out.log(`wrote ${r.records} records (response and metadata, reconstructed) into ${dir}: ${r.files.join(', ')}`);
  return r;
}
