/**
 * WARC writing cost per page, alone (no crawl): a fetch's request, response and metadata records
 * built, serialised by warcio, gzip-compressed per record and appended with their CDXJ lines, for a
 * page of --kb KB (default 11, the synthetic corpus's mean). Median of 3 runs of --pages pages.
 *
 *   npx tsx scripts/bench-warc.ts [--pages 3000] [--kb 11]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { WireExchange } from '../src/fetch/wire-exchange.js';
import { serialize, WarcFileWriter } from '../src/warc/warc-file-writer.js';
import { metadataRecord, newRecordId, requestRecord, responseRecord } from '../src/warc/warc-records.js';

const { values: a } = parseArgs({ options: { pages: { type: 'string', default: '3000' }, kb: { type: 'string', default: '11' } } });
const pages = Number(a.pages);
const words = 'tobacco leaves cigar 烟草 field harvest curing '.split(' ');
const unit = Buffer.from(`${Array.from({ length: 64 }, (_, i) => words[(i * 7) % words.length]).join(' ')} `);
const body = Buffer.concat([Buffer.from('<p>'), Buffer.alloc(Number(a.kb) * 1024, unit), Buffer.from('</p>')]);
const wire: WireExchange = {
  requestHead: 'GET /x HTTP/1.1\r\nhost: x.test\r\nconnection: keep-alive\r\nuser-agent: bench\r\naccept: text/html\r\naccept-encoding: gzip, deflate, br\r\n',
  httpVersion: 'HTTP/1.1', statusCode: 200, statusText: 'OK', headerBytesExact: true, complete: true,
  headers: [['Content-Type', 'text/html; charset=utf-8'], ['Content-Length', String(body.length)], ['Date', new Date().toUTCString()]],
  body: [body], bodyBytes: body.length,
};

const runs: { cpuMs: number; wallMs: number }[] = [];
for (let rep = 0; rep < 3; rep++) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-warc-'));
  try {
    const writer = new WarcFileWriter({ dir, maxBytes: 1e9, crawl: 'bench', worker: '0' });
    await writer.open();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < pages; i++) {
      const f = { url: `http://x.test/${i}`, date: new Date().toISOString(), ip: '127.0.0.1' };
      const id = newRecordId();
      const recs = [requestRecord(f, id, wire), responseRecord(f, id, wire, null), metadataRecord(f, id, [['relevance', '0.5'], ['relevant', 'true'], ['depth', '2'], ['outlink', 'http://x.test/a L a/@href']])];
      await writer.append(await Promise.all(recs.map((r) => serialize(r))));
    }
    await writer.close();
    const c = process.cpuUsage(c0);
    runs.push({ cpuMs: (c.user + c.system) / 1000 / pages, wallMs: (performance.now() - t0) / pages });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[1];
process.stdout.write(`${JSON.stringify({
  command: `npx tsx scripts/bench-warc.ts --pages ${pages} --kb ${a.kb}`,
  page_bytes: body.length,
  cpu_ms_per_page: +median(runs.map((r) => r.cpuMs)).toFixed(3),
  wall_ms_per_page: +median(runs.map((r) => r.wallMs)).toFixed(3),
}, null, 2)}\n`);
