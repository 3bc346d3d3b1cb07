import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { Recrawler } from '../../src/revisit/recrawl.js';
import { storedConfig } from '../../src/revisit/recrawl-types.js';
import { openRecrawlWarc } from '../../src/warc/warc-output.js';
import { parseCdxjLine } from '../../src/warc/warc-originals.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { chunked, head, startRawServer, type RawServer } from './raw-http-server.js';
import { gzipMembers, readWarc, sha256Base32, warcioCdxj, type ReadRecord } from './read-warc.js';

const HOST = 'warc.test';
const html = (title: string, body: string) => Buffer.from(`<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`);

// pages with known bytes
const INDEX = html('tobacco index', '<p>tobacco</p><a href="/gz">gz</a> <a href="/big">big</a> <a href="/bad">bad</a> <a href="/cond">cond</a> <a href="/same">same</a> <a href="/moving">moving</a>');
const GZ_HTML = html('gzip tobacco', `<p>${'tobacco leaves and cigars '.repeat(200)}</p>`);
const GZ_WIRE = gzipSync(GZ_HTML);
// 5 MB that gzip cannot shrink much (random text): its record needs a file of its own at --warc-max-bytes 1000000
const BIG = Buffer.concat([Buffer.from('<!doctype html><html><head><title>big tobacco</title></head><body><pre>'), Buffer.from(randomBytes(3_900_000).toString('base64')), Buffer.from('</pre></body></html>')]);
// declared UTF-8, with bytes that are not UTF-8 (a lone 0xff, a cut sequence, latin1 é)
const BAD = Buffer.concat([Buffer.from('<html><head><title>bad tobacco</title></head><body><p>caf'), Buffer.from([0xe9, 0xff, 0xfe, 0xc3, 0x28, 0x80]), Buffer.from(' tobacco</p></body></html>')]);
const COND = html('cond tobacco', '<p>tobacco with an etag</p>');
const SAME = html('same tobacco', '<p>tobacco that never changes</p>');
let moving = 0;

/** The heads as written, by path (the crawl's first response of each). */
const HEADS: Record<string, [string, [string, string][]]> = {
  '/': ['200 OK', [['Content-Type', 'text/html; charset=utf-8'], ['Content-Length', String(INDEX.length)]]],
  '/gz': ['200 Fine Thanks', [['content-TYPE', 'text/html; charset=utf-8'], ['Set-Cookie', 'a=1'], ['X-Between', 'x'], ['Set-Cookie', 'b=2'], ['Content-Encoding', 'gzip'], ['Content-Length', String(GZ_WIRE.length)]]],
  '/bad': ['200 OK', [['Content-Type', 'text/html; charset=utf-8'], ['Content-Length', String(BAD.length)]]],
  '/cond': ['200 OK', [['Content-Type', 'text/html'], ['ETag', '"v1"'], ['Content-Length', String(COND.length)]]],
  '/same': ['200 OK', [['Content-Type', 'text/html'], ['Content-Length', String(SAME.length)]]],
};

function respond(path: string, h: Map<string, string>) {
  switch (path) {
    case '/': return { head: head(HEADS['/'][0], HEADS['/'][1]), parts: [INDEX] };
    case '/gz': return { head: head(HEADS['/gz'][0], HEADS['/gz'][1]), parts: [GZ_WIRE] };
    case '/big': return { head: head('200 OK', [['Content-Type', 'text/html'], ['Transfer-Encoding', 'chunked']]), parts: chunked(BIG, 65_536) };
    case '/bad': return { head: head(HEADS['/bad'][0], HEADS['/bad'][1]), parts: [BAD] };
    case '/cond':
      if (h.get('if-none-match') === '"v1"') return { head: head('304 Not Modified', [['ETag', '"v1"'], ['X-Cache', 'hit']]), parts: [] };
      return { head: head(HEADS['/cond'][0], HEADS['/cond'][1]), parts: [COND] };
    case '/same': return { head: head(HEADS['/same'][0], HEADS['/same'][1]), parts: [SAME] };
    case '/moving': {
      const b = html('moving tobacco', `<p>tobacco version ${++moving}</p>`);
      return { head: head('200 OK', [['Content-Type', 'text/html'], ['Content-Length', String(b.length)]]), parts: [b] };
    }
    default: return { head: head('404 Not Found', [['Content-Length', '0']]), parts: [] };
  }
}

const warcFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.warc.gz')).sort();

describe('WARC output (crawl --warc, recrawl, export --format warc)', () => {
  let server: RawServer;
  let dir: string;
  let db: string;
  let warcDir: string;
  let records: ReadRecord[] = [];
  let crawlFiles: string[] = [];

  beforeAll(async () => {
    server = await startRawServer(respond);
    dir = tmpDir();
    db = join(dir, 'w.db');
    warcDir = join(dir, 'warc');
    const topic = join(dir, 'warc-topic.yaml');
    writeFileSync(topic, [
      'name: warc-topic', `seeds: ["http://${HOST}/"]`, 'keywords: {tobacco: 1}', 'strategy: {name: breadth-first}',
      'politeness: {delay_ms: 0, concurrency: 2}', 'limits: {max_page_bytes: 10000000}', '',
    ].join('\n'));
    const r = await runCli(['crawl', topic, '--db', db, '--resolve', `${HOST}=127.0.0.1:${server.port}`, '--warc', warcDir, '--warc-max-bytes', '1000000', '--json'], { timeoutMs: 120_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    crawlFiles = warcFiles(warcDir);
    for (const f of crawlFiles) records.push(...(await readWarc(join(warcDir, f))));
  }, 180_000);

  afterAll(async () => {
    await server?.close();
  });

  const responseOf = (path: string) => records.find((r) => r.type === 'response' && r.headers.get('warc-target-uri') === `http://${HOST}${path}`)!;

  it('writes WARC/1.1 files named by crawl, time, worker and sequence, rotated at --warc-max-bytes, each opening with a warcinfo', () => {
    expect(crawlFiles.length).toBeGreaterThanOrEqual(2); // the 5 MB page does not fit with the others in 1 MB
    for (const [i, f] of crawlFiles.entries()) expect(f).toMatch(new RegExp(`^warc-topic-\\d{17}-0-${String(i).padStart(5, '0')}\\.warc\\.gz$`));
    for (const f of crawlFiles) {
      const first = records.find((r) => r.file.endsWith(f))!;
      expect(first.type).toBe('warcinfo');
      expect(first.headers.get('warc-filename')).toBe(f);
      // a file passes the cap only when it holds one fetch's request and response besides its warcinfo
      const inFile = records.filter((r) => r.file.endsWith(f));
      if (statSync(join(warcDir, f)).size > 1_000_000) expect(inFile.map((r) => r.type)).toEqual(['warcinfo', 'request', 'response']);
      else expect(statSync(join(warcDir, f)).size).toBeLessThanOrEqual(1_000_000);
    }
    expect(readFileSync(join(warcDir, crawlFiles[0])).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });

  it('has a request, a response and a metadata record per page, with the fields the issue names', () => {
    for (const path of ['/', '/gz', '/big', '/bad', '/cond', '/same', '/moving']) {
      const url = `http://${HOST}${path}`;
      const resp = responseOf(path);
      expect(resp, path).toBeDefined();
      const h = resp.headers;
      expect(h.get('warc-type')).toBe('response');
      expect(h.get('warc-date')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(h.get('warc-ip-address')).toBe('127.0.0.1');
      expect(h.get('warc-payload-digest')).toMatch(/^sha256:[A-Z2-7]+=*$/);
      expect(h.get('warc-block-digest')).toMatch(/^sha256:[A-Z2-7]+=*$/);
      const id = h.get('warc-record-id')!;
      const req = records.filter((r) => r.type === 'request' && r.headers.get('warc-target-uri') === url);
      expect(req).toHaveLength(1);
      expect(req[0].headers.get('warc-concurrent-to')).toBe(id);
      const meta = records.filter((r) => r.type === 'metadata' && r.headers.get('warc-concurrent-to') === id);
      expect(meta).toHaveLength(1);
      const fields = meta[0].block.toString();
      expect(fields).toMatch(/^relevance: [\d.]+\r\n/m);
      expect(fields).toMatch(/^relevant: (true|false)\r\n/m);
      expect(fields).toMatch(/^priority: [-\d.e]+\r\n/m);
      expect(fields).toMatch(/^depth: \d+\r\n/m);
      if (path === '/') {
        expect(fields).toContain('depth: 0\r\n');
        for (const p of ['/gz', '/big', '/bad', '/cond', '/same', '/moving']) expect(fields).toContain(`outlink: http://${HOST}${p} L a/@href\r\n`);
      }
    }
  });

  it('recomputes every block and payload digest', () => {
    let n = 0;
    for (const r of records) {
      if (r.type === 'warcinfo') continue;
      expect(sha256Base32(r.block), `${r.type} ${r.headers.get('warc-target-uri')}`).toBe(r.headers.get('warc-block-digest'));
      if (r.type === 'response') expect(sha256Base32(r.payload!)).toBe(r.headers.get('warc-payload-digest'));
      n++;
    }
    expect(n).toBeGreaterThanOrEqual(21);
  });

  it('keeps what was on the wire: status line, header names, case, order and repeats, the body before decoding', () => {
    const gz = responseOf('/gz');
    expect(gz.httpHead).toBe(`HTTP/1.1 ${HEADS['/gz'][0]}\r\n${HEADS['/gz'][1].map(([n, v]) => `${n}: ${v}\r\n`).join('')}`);
    expect(gz.payload!.equals(GZ_WIRE)).toBe(true); // the gzip bytes as sent, not the HTML
    const bad = responseOf('/bad');
    expect(bad.payload!.equals(BAD)).toBe(true);
    const big = responseOf('/big');
    expect(big.payload!.length).toBe(BIG.length);
    expect(big.payload!.equals(BIG)).toBe(true);
    // undici undoes the chunking: the record says so by the StormCrawler renaming
    expect(big.httpHead).toBe('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Crawler-Transfer-Encoding: chunked\r\n');
    // the request record is the head the server received, byte for byte
    for (const path of ['/', '/gz', '/bad']) {
      const req = records.find((r) => r.type === 'request' && r.headers.get('warc-target-uri') === `http://${HOST}${path}`)!;
      expect(req.httpHead).toBe(server.requests.get(path)![0]);
    }
  });

  it('stores one gzip member per record, and the CDXJ offsets open the right records', async () => {
    for (const f of crawlFiles) {
      const inFile = records.filter((r) => r.file.endsWith(f));
      expect(gzipMembers(join(warcDir, f))).toEqual(inFile.map((r) => r.offset));
      const lines = readFileSync(join(warcDir, f.replace(/\.warc\.gz$/, '.cdxj')), 'utf8').split('\n').filter(Boolean);
      expect(lines.length).toBe(inFile.filter((r) => r.type === 'response' || r.type === 'revisit').length);
      const data = readFileSync(join(warcDir, f));
      // the index written as records were written is the one warcio's indexer makes of the finished file
      expect(lines.map((l) => `${l}\n`)).toEqual(await warcioCdxj(join(warcDir, f)));
      for (const line of lines) {
        const c = parseCdxjLine(line)!;
        expect(c.filename).toBe(f);
        const rec = await new WARCParser([data.subarray(Number(c.offset), Number(c.offset) + Number(c.length))]).parse();
        expect(rec!.warcTargetURI).toBe(c.url);
        expect(rec!.warcType).toBe('response');
        expect(`sha256:${c.digest}`).toBe(rec!.warcPayloadDigest);
        expect(c.urlkey).toMatch(/^test,warc\)\//);
        expect(c.timestamp).toBe(rec!.warcDate!.replace(/[-:T]/g, '').slice(0, 14));
      }
    }
  });

  it('recrawl writes revisit records: server-not-modified for a 304, identical-payload-digest for the same body, a response for a changed one', async () => {
    let t = Date.now() + 40 * 86_400_000; // every page due
    const config = storedConfig(db);
    const w = await openRecrawlWarc({ dir: warcDir }, config, db, config.name);
    const rc = new Recrawler({ dbPath: db, config, resolve: { [HOST]: `127.0.0.1:${server.port}` }, mappedOnly: true, now: () => t, sleep: async (ms) => void (t += ms), hooks: [w.hook] });
    try {
      const s = await rc.runDue();
      expect(s.notModified).toBe(1);
    } finally {
      await rc.close();
      await w.close();
    }
    const newFiles = w.writer.files;
    expect(newFiles.length).toBe(1);
    expect(newFiles[0]).toMatch(/^warc-topic-\d{17}-revisit-00000\.warc\.gz$/);
    const rev = await readWarc(join(warcDir, newFiles[0]));
    const of = (path: string) => rev.filter((r) => r.headers.get('warc-target-uri') === `http://${HOST}${path}` && (r.type === 'revisit' || r.type === 'response'));

    const cond = of('/cond');
    expect(cond).toHaveLength(1);
    expect(cond[0].type).toBe('revisit');
    expect(cond[0].headers.get('warc-profile')).toBe('http://netpreserve.org/warc/1.1/revisit/server-not-modified');
    const orig = responseOf('/cond');
    expect(cond[0].headers.get('warc-refers-to-target-uri')).toBe(orig.headers.get('warc-target-uri'));
    expect(cond[0].headers.get('warc-refers-to-date')).toBe(orig.headers.get('warc-date'));
    expect(cond[0].headers.get('warc-refers-to')).toBe(orig.headers.get('warc-record-id'));
    expect(cond[0].statusCode).toBe(304);
    expect(cond[0].httpHead).toBe('HTTP/1.1 304 Not Modified\r\nETag: "v1"\r\nX-Cache: hit\r\n');
    // the conditional request went out as the request record says
    const condReq = rev.find((r) => r.type === 'request' && r.headers.get('warc-target-uri') === `http://${HOST}/cond`)!;
    expect(condReq.httpHead).toBe(server.requests.get('/cond')![1]);
    expect(condReq.httpHead).toContain('if-none-match: "v1"\r\n');

    const same = of('/same');
    expect(same[0].type).toBe('revisit');
    expect(same[0].headers.get('warc-profile')).toBe('http://netpreserve.org/warc/1.1/revisit/identical-payload-digest');
    expect(same[0].headers.get('warc-payload-digest')).toBe(responseOf('/same').headers.get('warc-payload-digest'));
    expect(same[0].headers.get('warc-payload-digest')).toBe(sha256Base32(SAME));
    expect(same[0].headers.get('warc-refers-to')).toBe(responseOf('/same').headers.get('warc-record-id'));

    const mov = of('/moving');
    expect(mov[0].type).toBe('response');
    expect(mov[0].payload!.toString()).toContain('tobacco version 2');
    for (const r of rev) if (r.type !== 'warcinfo') expect(sha256Base32(r.block)).toBe(r.headers.get('warc-block-digest'));
    expect(gzipMembers(join(warcDir, newFiles[0]))).toEqual(rev.map((r) => r.offset));
    const cdxj = readFileSync(join(warcDir, newFiles[0].replace(/\.warc\.gz$/, '.cdxj')), 'utf8');
    expect(cdxj).toContain('"mime":"warc/revisit"');
    expect(cdxj.split(/(?<=\n)/)).toEqual(await warcioCdxj(join(warcDir, newFiles[0])));
  }, 120_000);

  it('export --format warc rebuilds response records from a crawl file, under a warcinfo that says they are reconstructed', async () => {
    const out = join(dir, 'exported');
    const r = await runCli(['export', db, '--format', 'warc', '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const files = warcFiles(out);
    expect(files.length).toBeGreaterThanOrEqual(1);
    const recs: ReadRecord[] = [];
    for (const f of files) recs.push(...(await readWarc(join(out, f))));
    const infos = new Map(recs.filter((x) => x.type === 'warcinfo').map((x) => [x.headers.get('warc-record-id')!, x]));
    for (const info of infos.values()) expect(info.block.toString()).toMatch(/reconstructed/);
    const responses = recs.filter((x) => x.type === 'response');
    expect(responses.length).toBe(7);
    for (const x of responses) {
      expect(infos.has(x.headers.get('warc-warcinfo-id')!)).toBe(true);
      expect(sha256Base32(x.payload!)).toBe(x.headers.get('warc-payload-digest'));
      expect(sha256Base32(x.block)).toBe(x.headers.get('warc-block-digest'));
    }
    const gz = responses.find((x) => x.headers.get('warc-target-uri') === `http://${HOST}/gz`)!;
    expect(gz.payload!.equals(GZ_HTML)).toBe(true); // stored decoded
    expect(gz.httpHead).toContain('x-crawler-content-encoding: gzip\r\n');
    expect(gz.httpHead).toContain(`x-crawler-content-length: ${GZ_WIRE.length}\r\n`);
    expect(gz.httpHead).toContain(`content-length: ${GZ_HTML.length}\r\n`);
    const bad = responses.find((x) => x.headers.get('warc-target-uri') === `http://${HOST}/bad`)!;
    expect(bad.payload!.equals(BAD)).toBe(true);
    const big = responses.find((x) => x.headers.get('warc-target-uri') === `http://${HOST}/big`)!;
    expect(big.payload!.equals(BIG)).toBe(true);
  });

  it('refuses a --warc that is not a folder before crawling (E_WARC, exit 1)', async () => {
    const file = join(dir, 'not-a-folder');
    writeFileSync(file, 'x');
    const topic = join(dir, 'warc-topic.yaml');
    const r = await runCli(['crawl', topic, '--db', join(dir, 'x.db'), '--resolve', `${HOST}=127.0.0.1:${server.port}`, '--warc', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^topicrawl: --warc .*not-a-folder: cannot write WARC files there .*\[E_WARC\]\n$/);
  });
});
