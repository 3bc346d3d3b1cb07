import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWebkbCorpus, stripHttpHeaders, WEBKB_SEEDS, type WebkbBuildStats } from '../../scripts/build-webkb.js';
import { loadCorpus, type Corpus } from '../../src/eval/corpus.js';
import { startCorpusServer, type CorpusServer } from '../../src/eval/corpus-server.js';
import { readTar, readTarGzFile } from '../../src/eval/tar-reader.js';
import { loadTopicFile } from '../../src/topic/load-topic.js';
import { tryNormalizeUrl } from '../../src/url/normalize.js';
import { SHARED_DIR, suiteTmpDir } from '../helpers/tmp.js';
import { errorOf } from '../helpers/error-of.js';

// ---- a tiny tar writer: 512-byte headers written by hand ----

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

function header(name: string, size: number, typeflag: string, opts: { prefix?: string; posix?: boolean } = {}): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'utf8');
  h.write(octal(0o644, 8), 100, 'latin1');
  h.write(octal(0, 8), 108, 'latin1');
  h.write(octal(0, 8), 116, 'latin1');
  h.write(octal(size, 12), 124, 'latin1');
  h.write(octal(0, 12), 136, 'latin1');
  h.write(typeflag, 156, 'latin1');
  h.write(opts.posix ? 'ustar\u000000' : 'ustar  \0', 257, 'latin1');
  if (opts.prefix) h.write(opts.prefix, 345, 155, 'utf8');
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(octal(sum, 7) + ' ', 148, 'latin1');
  return h;
}

function member(name: string, data: Buffer | string, typeflag = '0', opts: { prefix?: string; posix?: boolean } = {}): Buffer {
  const body = Buffer.isBuffer(data) ? data : Buffer.from(data, 'latin1');
  const pad = Buffer.alloc((512 - (body.length % 512)) % 512);
  return Buffer.concat([header(name, body.length, typeflag, opts), body, pad]);
}

/** A GNU long-name entry ("././@LongLink", type L) followed by the member itself. */
function longMember(name: string, data: string): Buffer {
  return Buffer.concat([member('././@LongLink', Buffer.from(name + '\0'), 'L'), member(name.slice(0, 100), data)]);
}

/** One pax record, "<length> key=value\n", the length in bytes counting itself. */
function paxRecord(key: string, value: string): Buffer {
  const rest = Buffer.byteLength(` ${key}=${value}\n`);
  let len = rest + String(rest).length;
  if (String(len).length !== String(rest).length) len++;
  return Buffer.from(`${len} ${key}=${value}\n`, 'utf8');
}

function tar(...members: Buffer[]): Buffer {
  return Buffer.concat([...members, Buffer.alloc(1024)]);
}


describe('readTar', () => {
  it('reads files and folders, GNU long names, ustar prefixes, pax paths and a name ending in "\\r"', () => {
    const long = `webkb/other/cornell/${'x'.repeat(150)}.html`;
    const buf = tar(
      member('webkb/', '', '5'),
      member('webkb/a.html', 'hello'),
      longMember(long, 'long body'),
      member('name.html', 'prefixed', '0', { prefix: 'deep/folder', posix: true }),
      member('PaxHeader', paxRecord('path', 'pax/é/long.html'), 'x'),
      member('short-pax', 'pax body'),
      member('webkb/misc/http:^^host^~josh^\r', 'cr'),
      member('webkb/big', 'y'.repeat(1000)),
    );
    const entries = [...readTar(buf)];
    expect(entries.map((e) => [e.name, e.type])).toEqual([
      ['webkb/', 'directory'], ['webkb/a.html', 'file'], [long, 'file'], ['deep/folder/name.html', 'file'],
      ['pax/é/long.html', 'file'], ['webkb/misc/http:^^host^~josh^\r', 'file'], ['webkb/big', 'file'],
    ]);
    expect(entries[1].data.toString()).toBe('hello');
    expect(entries[2].data.toString()).toBe('long body');
    expect(entries[4].data.toString()).toBe('pax body');
    expect(entries[6].size).toBe(1000);
    expect(entries[6].data.toString()).toBe('y'.repeat(1000));
  });

  it('rejects a corrupted header and a truncated member with E_CORPUS', () => {
    const good = tar(member('a.txt', 'abc'));
    const bad = Buffer.from(good);
    bad[0] = 0x62; // name changed, checksum not
    expect(errorOf(() => [...readTar(bad)]).code).toBe('E_CORPUS');
    const truncated = member('b.txt', 'z'.repeat(600)).subarray(0, 700);
    expect(errorOf(() => [...readTar(truncated)]).message).toMatch(/truncated/);
  });

  const dir = suiteTmpDir('topicrawl-tar-');
  it('reads a gzipped archive from disk', () => {
    writeFileSync(join(dir, 't.tar.gz'), gzipSync(tar(member('one.html', '1'), member('two.html', '22'))));
    expect(readTarGzFile(join(dir, 't.tar.gz')).map((e) => `${e.name}=${e.data.toString()}`)).toEqual(['one.html=1', 'two.html=22']);
  });
});

describe('stripHttpHeaders', () => {
  it('keeps the body bytes after the first blank line (CRLF or LF)', () => {
    const body = Buffer.from([0x3c, 0x70, 0x3e, 0xe9, 0x0d, 0x0a, 0x0d, 0x0a, 0x78]); // "<p>é\r\n\r\nx" in Latin-1
    expect(stripHttpHeaders(Buffer.concat([Buffer.from('Date: x\r\nServer: y\r\n\r\n'), body])).body.equals(body)).toBe(true);
    expect(stripHttpHeaders(Buffer.concat([Buffer.from('MIME-Version: 1.0\nContent-type: text/html\n\n'), body])).body.equals(body)).toBe(true);
    const alert = stripHttpHeaders(Buffer.from('WWW Alert:  Redirection response\nLocation: http://a/b/\r\n\r\n<h1>moved</h1>'));
    expect(alert.body.toString()).toBe('<h1>moved</h1>');
    expect(alert.headers).toMatch(/^WWW Alert/);
  });

  it('treats a file that does not start with a header line as all body', () => {
    const html = Buffer.from('<HEAD>\n\n<TITLE>t</TITLE>');
    expect(stripHttpHeaders(html)).toEqual({ headers: null, body: html });
  });
});

const HDR = 'Date: Tue, 14 Jan 1997 20:00:00 GMT\nServer: NCSA/1.5\nContent-type: text/html\n\n';
const HDR_CRLF = 'MIME-Version: 1.0\r\nServer: CERN/3.0\r\nContent-Type: text/html\r\n\r\n';

describe('buildWebkbCorpus on a small made-up archive', () => {
  const dir = suiteTmpDir('topicrawl-webkb-mini-');
  const src = join(dir, 'src');
  const out = join(dir, 'out');
  const longCourse = `http:^^www.cs.washington.edu^education^courses^${'x'.repeat(80)}.html`;
  const cornellBody = '<a href="/Info/People/jane/">Jane</a> <a href="Info/Courses/CS100.html">CS100</a> <a href="ftp://ftp.cs.cornell.edu/">ftp</a> caf\xe9';
  let stats: WebkbBuildStats;
  let corpus: Corpus;

  beforeAll(() => {
    mkdirSync(src);
    const f = (cls: string, uni: string, name: string, body: string, hdr = HDR): Buffer => member(`webkb/${cls}/${uni}/${name}`, hdr + body);
    const archive = tar(
      member('webkb/', '', '5'),
      f('department', 'cornell', 'http:^^www.cs.cornell.edu^', cornellBody),
      f('department', 'texas', 'http:^^www.cs.utexas.edu^', '<p>UT</p>'),
      f('department', 'washington', 'http:^^www.cs.washington.edu^', '<p>UW</p>'),
      f('department', 'wisconsin', 'http:^^www.cs.wisc.edu', '<p>UW-Madison</p>'),
      f('course', 'cornell', 'http:^^www.cs.cornell.edu^Info^Courses^CS100.html', '<h1>CS 100 syllabus</h1>'),
      f('faculty', 'cornell', 'http:^^www.cs.cornell.edu^Info^People^jane^', '<a href="http://WWW.Example.EDU/~bob/">Bob</a>', HDR_CRLF),
      f('other', 'cornell', 'http:^^www.cs.cornell.edu^Info^People^jane', '<p>moved</p>'), // file/folder conflict
      f('student', 'misc', 'http:^^WWW.Example.EDU^~bob^\r', '<p>Bob, grad student</p>'),
      f('other', 'misc', 'http:^^www.example.edu^~bob^', '<p>Bob again</p>'), // same URL: merged
      f('project', 'misc', 'ftp:^^ftp.example.edu^pub^', 'listing'),
      f('project', 'misc', 'http:^^www.example.edu:8080^proj^', '<p>port</p>'),
      f('staff', 'misc', 'http:^^www.example.edu^a%2Fb.html', '<p>encoded slash</p>'),
      longMember(`webkb/course/washington/${longCourse}`, `${HDR}<p>long</p>`),
    );
    writeFileSync(join(src, 'webkb_html.tar.gz'), gzipSync(archive));
    stats = buildWebkbCorpus({ src, out });
    corpus = loadCorpus(out);
  });

  it('writes the servable pages and counts each skip by reason', () => {
    expect(stats.skipped).toEqual({
      'duplicate URL (merged)': 1, 'file/folder conflict': 1, 'non-default port': 1, 'not an http URL': 1, 'path not servable': 1,
    });
    expect(stats.pages).toBe(8);
    expect(corpus.labels.size).toBe(8);
    expect(corpus.labels.get('http://www.example.edu/~bob/')).toEqual(['student']);
    expect(corpus.labels.get('http://www.cs.wisc.edu/')).toEqual(['department']);
    expect(corpus.labels.get(tryNormalizeUrl(longCourse.replaceAll('^', '/'))!)).toEqual(['course']);
    expect(corpus.labels.has('http://www.cs.cornell.edu/Info/People/jane')).toBe(false);
    expect(stats.labels).toEqual({ course: 2, department: 4, faculty: 1, student: 1 });
    expect(corpus.meta.seeds).toEqual([...WEBKB_SEEDS]);
    expect(corpus.hosts).toContain('www.example.edu');
  });

  it('strips the headers and keeps the body bytes, mapping "/" to index.html', () => {
    expect(readFileSync(join(out, 'site/www.cs.cornell.edu/index.html')).equals(Buffer.from(cornellBody, 'latin1'))).toBe(true);
    expect(readFileSync(join(out, 'site/www.cs.cornell.edu/Info/People/jane/index.html'), 'latin1')).toBe('<a href="http://WWW.Example.EDU/~bob/">Bob</a>');
    expect(readFileSync(join(out, 'site/www.example.edu/~bob/index.html'), 'latin1')).toBe('<p>Bob, grad student</p>');
  });

  it('counts the pages reachable from the seeds over links inside the corpus', () => {
    // 4 seeds, CS100 and jane from Cornell's page, bob from jane's; the long course page is not linked
    expect(stats.reachable).toEqual({ pages: 7, labels: { course: 1, department: 4, faculty: 1, student: 1 } });
  });

  it('is idempotent: a rebuild replaces the folder with the same content', () => {
    const before = readFileSync(join(out, 'labels.tsv'), 'utf8');
    writeFileSync(join(out, 'site/www.cs.cornell.edu/stale.html'), 'stale');
    buildWebkbCorpus({ src, out, reach: false });
    expect(readFileSync(join(out, 'labels.tsv'), 'utf8')).toBe(before);
    expect(existsSync(join(out, 'site/www.cs.cornell.edu/stale.html'))).toBe(false);
  });

  it('refuses to replace a folder that is not a corpus', () => {
    const other = join(dir, 'precious');
    mkdirSync(other);
    writeFileSync(join(other, 'keep.txt'), 'keep');
    expect(errorOf(() => buildWebkbCorpus({ src, out: other, reach: false })).code).toBe('E_CORPUS');
    expect(readFileSync(join(other, 'keep.txt'), 'utf8')).toBe('keep');
  });
});

// ---- the real data set (../shared/data/webkb, or WEBKB_SRC): 11 MB, research use, never copied into the project ----

const WEBKB_SRC = process.env.WEBKB_SRC ?? join(SHARED_DIR, 'data/webkb');
const present = existsSync(join(WEBKB_SRC, 'webkb_html.tar.gz')) && existsSync(join(WEBKB_SRC, 'labels.tsv'));
if (!present) {
  console.warn(`skipped: the WebKB tests on the real data set: no webkb_html.tar.gz and labels.tsv in ${WEBKB_SRC} (WEBKB_SRC=DIR points elsewhere)`);
}
const TOPICS = ['course', 'faculty', 'project', 'student'];

function getBytes(port: number, host: string, path: string): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((ok, ko) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
      res.on('error', ko);
    });
    req.on('error', ko);
    req.end();
  });
}

/** The body of a stored response, found independently of stripHttpHeaders: after the first blank line. */
function bodyAfterBlankLine(file: Buffer): Buffer {
  const ends = [file.indexOf('\r\n\r\n'), file.indexOf('\n\n')].filter((i) => i >= 0);
  const at = Math.min(...ends);
  return file.subarray(at + (at === file.indexOf('\r\n\r\n') ? 4 : 2));
}

describe.skipIf(!present)(`WebKB corpus built from ${WEBKB_SRC} (skipped: the data set is not there)`, () => {
  const out = join(suiteTmpDir('topicrawl-webkb-'), 'webkb');
  let stats: WebkbBuildStats;
  let corpus: Corpus;
  let server: CorpusServer;
  /** source labels.tsv: normalised URL → classes, and the tar member of each URL */
  const source = new Map<string, { classes: Set<string>; member: string }>();
  let sourceRows = 0;

  beforeAll(async () => {
    stats = buildWebkbCorpus({ src: WEBKB_SRC, out, reach: false });
    corpus = loadCorpus(out);
    server = await startCorpusServer(out);
    const lines = readFileSync(join(WEBKB_SRC, 'labels.tsv'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
    for (const line of lines) {
      const [cls, , url, member] = line.split('\t');
      sourceRows++;
      const n = tryNormalizeUrl(url.replaceAll('\\r', '\r'));
      if (n === null) continue;
      const s = source.get(n) ?? { classes: new Set<string>(), member: member.replaceAll('\\r', '\r') };
      s.classes.add(cls);
      source.set(n, s);
    }
  }, 60_000);
  afterAll(async () => server?.close());

  it('has one labelled page per source row minus the reported skips, each with a class the source gives it', () => {
    const skipped = Object.values(stats.skipped).reduce((a, b) => a + b, 0);
    expect(sourceRows).toBe(8282);
    expect(corpus.labels.size).toBe(sourceRows - skipped);
    expect(corpus.labels.size).toBe(stats.pages);
    expect(stats.pages).toBeGreaterThan(8000);
    const problems: string[] = [];
    for (const [url, labels] of corpus.labels) {
      if (tryNormalizeUrl(url) !== url) problems.push(`${url}: not normalised`);
      if (new URL(url).port !== '') problems.push(`${url}: has a port`);
      const s = source.get(url);
      if (!s) problems.push(`${url}: not in the source`);
      else if (labels.length === 0 || labels.some((l) => !s.classes.has(l))) problems.push(`${url}: ${labels} not among ${[...s.classes]}`);
    }
    expect(problems).toEqual([]);
    const perClass: Record<string, number> = {};
    for (const ls of corpus.labels.values()) for (const l of ls) perClass[l] = (perClass[l] ?? 0) + 1;
    expect(perClass).toEqual(stats.labels);
    expect(Object.keys(corpus.meta.labels).sort()).toEqual(['course', 'department', 'faculty', 'other', 'project', 'staff', 'student']);
  });

  it('serves known pages byte-identical to the tar body, headers stripped', async () => {
    const entries = new Map(readTarGzFile(join(WEBKB_SRC, 'webkb_html.tar.gz')).map((e) => [e.name, e.data]));
    const known = [
      'http://cs.cornell.edu/Info/Courses/Current/CS415/CS414.html',
      'http://simon.cs.cornell.edu/Info/Courses/Current/CS401/',
      'http://www.cs.wisc.edu/',
      'http://www.cs.utexas.edu/',
    ];
    for (const url of known) {
      const s = source.get(url)!;
      const raw = entries.get(s.member)!;
      const expected = bodyAfterBlankLine(raw);
      expect(expected.length).toBeLessThan(raw.length);
      const u = new URL(url);
      const res = await getBytes(server.port, u.hostname, u.pathname);
      expect(res.status, url).toBe(200);
      expect(res.type).toMatch(/^text\/html/);
      expect(res.body.equals(expected), url).toBe(true);
    }
  });

  it('has no stored HTTP header block left at the top of any page', () => {
    const headerStart = /^(MIME-Version|Date|Server|Content-type|Last-modified|HTTP\/1)/i;
    const withHeaders: string[] = [];
    for (const url of corpus.labels.keys()) {
      const u = new URL(url);
      const rel = decodeURIComponent(u.pathname).slice(1);
      const file = join(out, 'site', u.hostname, rel === '' || rel.endsWith('/') ? `${rel}index.html` : rel);
      if (headerStart.test(readFileSync(file).subarray(0, 40).toString('latin1'))) withHeaders.push(url);
    }
    expect(withHeaders).toEqual([]);
  });

  it('has four topics that load and name a label of the corpus', () => {
    for (const t of TOPICS) {
      const topic = loadTopicFile(join(import.meta.dirname, `../../topics/webkb-${t}.yaml`));
      expect(topic.evaluation.label).toBe(t);
      expect(Object.hasOwn(corpus.meta.labels, topic.evaluation.label!)).toBe(true);
      expect(topic.seeds).toEqual(corpus.meta.seeds);
      for (const s of topic.seeds) expect(corpus.labels.get(s)).toEqual(['department']);
      expect(topic.strategy.name).toBe('best-first-fish');
      expect(topic.politeness.delay_ms).toBe(0);
      expect(topic.limits.max_pages).toBe(500);
    }
  });
});
