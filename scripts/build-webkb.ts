/**
 * Builds the WebKB corpus (CMU "4 Universities" data set, January 1997; Craven et al., AAAI-98) in
 * the corpus format of DESIGN.md from the read-only copy in ../shared/data/webkb:
 *   npx tsx scripts/build-webkb.ts [--src ../shared/data/webkb] [--out corpora/webkb] [--no-reach]
 * (`--src` defaults to $WEBKB_SRC, else ../shared/data/webkb; without the archive there: a one-line
 * error naming the folder, exit 2.)
 * Each tar member is "HTTP headers, blank line, body": the headers are stripped, the body is kept
 * byte for byte. Pages the format cannot serve are skipped and counted by reason. Deterministic;
 * re-running replaces the output folder. Also importable: {@link buildWebkbCorpus}.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { TopicrawlError } from '../src/errors.js';
import { contentTypeFor, targetToRelativePath } from '../src/eval/corpus-server.js';
import { readTarGzFile } from '../src/eval/tar-reader.js';
import { Parse5Parser } from '../src/parse/html-parser.js';
import { tryNormalizeUrl } from '../src/url/normalize.js';

/** The CS department home pages of the four universities (class "department" in WebKB). */
export const WEBKB_SEEDS: readonly string[] = Object.freeze([
  'http://www.cs.cornell.edu/', 'http://www.cs.utexas.edu/', 'http://www.cs.washington.edu/', 'http://www.cs.wisc.edu/',
]);

export const WEBKB_LABELS: Readonly<Record<string, string>> = Object.freeze({
  course: 'a course home page (the web page of one university course)',
  department: 'a university department home page',
  faculty: 'the home page of a faculty member',
  project: 'the home page of a research project',
  staff: 'the home page of a staff member',
  student: 'the home page of a student',
  other: "WebKB's catch-all class: a page that is none of the six above",
});

/** What a build wrote and skipped. `skipped` maps a reason to a count. */
export interface WebkbBuildStats {
  out: string;
  /** Rows of labels.tsv (a URL served by an existing file of identical body counts too). */
  pages: number;
  /** Files written under site/. */
  files: number;
  hosts: number;
  skipped: Record<string, number>;
  labels: Record<string, number>;
  /** Pages whose file extension makes the server send a non-HTML content type (the crawler will not parse them). */
  notHtml: number;
  /** Pages kept whose file held no HTTP header block (the whole file is the body). */
  noHeaders: number;
  seeds: string[];
  /** Files reachable from the seeds over links inside the corpus (null when not computed). */
  reachable: { pages: number; labels: Record<string, number> } | null;
}

// the folder-name rule of src/eval/corpus.ts (listCorpusHosts)
const HOST_RE = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
const HEADER_LINE_RE = /^(HTTP\/\d|WWW Alert:|[A-Za-z][A-Za-z0-9-]*:)/;

/**
 * Splits a stored HTTP response ("headers, blank line, body") and returns the body bytes
 * unchanged. A file whose first line is not a header line, or with no blank line, is all body
 * (`headers` null).
 */
export function stripHttpHeaders(buf: Buffer): { headers: string | null; body: Buffer } {
  const firstEnd = buf.indexOf(10);
  const first = buf.toString('latin1', 0, firstEnd === -1 ? Math.min(buf.length, 200) : firstEnd);
  if (!HEADER_LINE_RE.test(first)) return { headers: null, body: buf };
  let p = 0;
  while (p < buf.length) {
    const nl = buf.indexOf(10, p);
    if (nl === -1) break;
    const len = nl - p - (nl > p && buf[nl - 1] === 13 ? 1 : 0);
    if (len === 0) return { headers: buf.toString('latin1', 0, p), body: buf.subarray(nl + 1) };
    p = nl + 1;
  }
  return { headers: null, body: buf };
}

interface Candidate {
  url: string;
  host: string;
  rel: string;
  labels: string[];
  tarName: string;
  body: Buffer;
  headers: boolean;
}

/** Where a page of WebKB goes, or why it cannot be served. */
function place(rawUrl: string): { url: string; host: string; rel: string } | { skip: string } {
  if (!/^http:/i.test(rawUrl)) return { skip: 'not an http URL' };
  const url = tryNormalizeUrl(rawUrl);
  if (url === null) return { skip: 'invalid URL' };
  const u = new URL(url);
  if (u.port !== '') return { skip: 'non-default port' };
  if (u.search !== '') return { skip: 'query string' };
  if (!HOST_RE.test(u.hostname)) return { skip: 'host name not servable' };
  const rel = targetToRelativePath(u.pathname);
  if (rel === null || rel.split('/').some((s) => Buffer.byteLength(s) > 240)) return { skip: 'path not servable' };
  return { url, host: u.hostname, rel };
}

function count(m: Record<string, number>, key: string): void {
  m[key] = (m[key] ?? 0) + 1;
}

function sorted(m: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Breadth-first search from the seeds over links between served files, the way the server maps URLs. */
function reach(files: Map<string, Candidate>, seeds: readonly string[]): { pages: number; labels: Record<string, number> } {
  const parser = new Parse5Parser();
  const keyOf = (url: string): string | null => {
    const n = tryNormalizeUrl(url);
    if (n === null) return null;
    const u = new URL(n);
    if (u.port !== '') return null;
    const rel = targetToRelativePath(u.pathname);
    return rel === null ? null : `${u.hostname}/${rel}`;
  };
  const seen = new Set<string>();
  const queue: string[] = [];
  for (const s of seeds) {
    const k = keyOf(s);
    if (k !== null && files.has(k) && !seen.has(k)) {
      seen.add(k);
      queue.push(k);
    }
  }
  const labels: Record<string, number> = {};
  for (let i = 0; i < queue.length; i++) {
    const page = files.get(queue[i])!;
    for (const l of page.labels) count(labels, l);
    if (!contentTypeFor(page.rel).startsWith('text/html')) continue;
    for (const link of parser.parse(page.body.toString('utf8'), page.url).links) {
      const k = keyOf(link.url);
      if (k !== null && files.has(k) && !seen.has(k)) {
        seen.add(k);
        queue.push(k);
      }
    }
  }
  return { pages: queue.length, labels: sorted(labels) };
}

/** Reads the tar members into candidates (sorted by URL, then member name); counts the skips. */
function collect(src: string, skipped: Record<string, number>): Candidate[] {
  const out: Candidate[] = [];
  for (const e of readTarGzFile(join(src, 'webkb_html.tar.gz'))) {
    if (e.type !== 'file') continue;
    const parts = e.name.split('/');
    if (parts.length !== 4 || parts[0] !== 'webkb') {
      count(skipped, 'unexpected member name');
      continue;
    }
    const [, label, , encoded] = parts;
    if (!Object.hasOwn(WEBKB_LABELS, label)) {
      count(skipped, 'unknown class');
      continue;
    }
    const where = place(encoded.replaceAll('^', '/'));
    if ('skip' in where) {
      count(skipped, where.skip);
      continue;
    }
    const { headers, body } = stripHttpHeaders(e.data);
    out.push({ ...where, labels: [label], tarName: e.name, body, headers: headers !== null });
  }
  return out.sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : a.tarName < b.tarName ? -1 : a.tarName > b.tarName ? 1 : 0));
}

/**
 * One candidate per URL. WebKB has a few pages twice (with and without a final "/", a fragment or
 * ":80"), some under two classes: the URL gets all their classes ("other" only when it is alone),
 * and the body of the first member (by name) of a class it keeps.
 */
function mergeDuplicates(sortedCandidates: Candidate[], skipped: Record<string, number>): Candidate[] {
  const out: Candidate[] = [];
  for (let i = 0; i < sortedCandidates.length; ) {
    let j = i + 1;
    while (j < sortedCandidates.length && sortedCandidates[j].url === sortedCandidates[i].url) j++;
    const group = sortedCandidates.slice(i, j);
    let labels = [...new Set(group.flatMap((c) => c.labels))].sort();
    if (labels.length > 1) labels = labels.filter((l) => l !== 'other');
    const first = group.find((c) => labels.includes(c.labels[0]))!;
    out.push({ ...first, labels });
    for (let k = 1; k < group.length; k++) count(skipped, 'duplicate URL (merged)');
    i = j;
  }
  return out;
}

/** Removes an earlier build at `out`; refuses to delete a folder that is not a corpus. */
function clearOut(out: string): void {
  if (!existsSync(out)) return;
  if (readdirSync(out).length > 0 && !existsSync(join(out, 'corpus.json'))) {
    throw new TopicrawlError('E_CORPUS', `${out}: exists and is not a corpus folder (no corpus.json); not replacing it`, { file: out });
  }
  rmSync(out, { recursive: true, force: true });
}

/** Builds the corpus from `<src>/webkb_html.tar.gz` into `out` (replaced). Throws E_CORPUS on failure. */
export function buildWebkbCorpus(opts: { src: string; out: string; reach?: boolean }): WebkbBuildStats {
  const out = resolve(opts.out);
  const archive = join(opts.src, 'webkb_html.tar.gz');
  if (!existsSync(archive)) {
    throw new TopicrawlError(
      'E_CORPUS',
      `no WebKB archive at ${resolve(archive)}; point --src DIR (or WEBKB_SRC=DIR) at the folder holding webkb_html.tar.gz`,
      { file: archive },
    );
  }
  const skipped: Record<string, number> = {};
  const candidates = collect(opts.src, skipped);

  const files = new Map<string, Candidate>(); // "<host>/<rel>" → the page whose body the file holds
  const rows: Candidate[] = [];
  for (const c of mergeDuplicates(candidates, skipped)) {
    const key = `${c.host}/${c.rel}`;
    const held = files.get(key);
    if (held && !held.body.equals(c.body)) {
      count(skipped, 'same file as another URL, other body');
      continue;
    }
    if (!held) files.set(key, c);
    rows.push(c);
  }
  // "/a" as a file and "/a/…" needing a folder "a": the folder wins (the server cannot serve both)
  const folders = new Set<string>();
  for (const key of files.keys()) {
    for (let i = key.indexOf('/'); i !== -1; i = key.indexOf('/', i + 1)) folders.add(key.slice(0, i));
  }
  const dropped = new Set<string>();
  for (const key of files.keys()) if (folders.has(key)) dropped.add(key);
  for (const key of dropped) files.delete(key);
  const kept = rows.filter((c) => {
    if (!dropped.has(`${c.host}/${c.rel}`)) return true;
    count(skipped, 'file/folder conflict');
    return false;
  });
  for (const s of WEBKB_SEEDS) {
    if (!kept.some((c) => c.url === s)) throw new TopicrawlError('E_CORPUS', `seed ${s} is not among the pages written`, { url: s });
  }

  const tmp = `${out}.building-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const hosts = new Set<string>();
  let noHeaders = 0;
  let notHtml = 0;
  for (const [key, c] of files) {
    const file = join(tmp, 'site', key);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, c.body);
    hosts.add(c.host);
  }
  const labels: Record<string, number> = {};
  let tsv = 'url\tlabels\n';
  for (const c of kept) {
    tsv += `${c.url}\t${c.labels.join(',')}\n`;
    for (const l of c.labels) count(labels, l);
    if (!c.headers) noHeaders++;
    if (!contentTypeFor(c.rel).startsWith('text/html')) notHtml++;
  }
  writeFileSync(join(tmp, 'labels.tsv'), tsv);
  const meta = {
    name: 'webkb',
    description:
      'WebKB "4 Universities" data set: 8,282 web pages of US university computer-science departments (Cornell, Texas, ' +
      'Washington, Wisconsin and others), crawled in January 1997 by the CMU World Wide Knowledge Base project and ' +
      'labelled by hand into seven classes (Craven et al., "Learning to Extract Symbolic Knowledge from the World Wide ' +
      'Web", AAAI-98). Built by scripts/build-webkb.ts: the stored HTTP headers are stripped, bodies kept as fetched; ' +
      'pages the format cannot serve (non-http, other ports, conflicting paths) are left out.',
    license:
      'Research use only, as distributed by CMU (http://www.cs.cmu.edu/afs/cs.cmu.edu/project/theo-20/www/data/); no ' +
      'licence file. Cite: M. Craven, D. DiPasquo, D. Freitag, A. McCallum, T. Mitchell, K. Nigam, S. Slattery, ' +
      '"Learning to Extract Symbolic Knowledge from the World Wide Web", AAAI-98. Test and evaluation data only.',
    seeds: [...WEBKB_SEEDS],
    labels: { ...WEBKB_LABELS },
  };
  writeFileSync(join(tmp, 'corpus.json'), JSON.stringify(meta, null, 2) + '\n');
  clearOut(out);
  mkdirSync(dirname(out), { recursive: true });
  renameSync(tmp, out);

  return {
    out, pages: kept.length, files: files.size, hosts: hosts.size, skipped: sorted(skipped), labels: sorted(labels), notHtml, noHeaders,
    seeds: [...WEBKB_SEEDS], reachable: opts.reach === false ? null : reach(files, WEBKB_SEEDS),
  };
}

function main(): void {
  const argv = yargs(hideBin(process.argv))
    .scriptName('build-webkb')
    .usage('$0 [options]: build the WebKB corpus from the shared data set')
    .option('src', { type: 'string', default: process.env.WEBKB_SRC ?? '../shared/data/webkb', describe: 'folder holding webkb_html.tar.gz (default: $WEBKB_SRC, else ../shared/data/webkb)' })
    .option('out', { type: 'string', default: 'corpora/webkb', describe: 'output folder (an existing corpus there is replaced)' })
    .option('reach', { type: 'boolean', default: true, describe: 'count the pages reachable from the seeds (--no-reach to skip)' })
    .strict()
    .help()
    .parseSync();
  try {
    const t0 = performance.now();
    const s = buildWebkbCorpus({ src: argv.src, out: argv.out, reach: argv.reach });
    const list = (m: Record<string, number>): string => Object.entries(m).map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
    const skippedTotal = Object.values(s.skipped).reduce((a, b) => a + b, 0);
    console.log(`${s.out}: ${s.pages} pages written (${s.files} files on ${s.hosts} hosts) in ${Math.round(performance.now() - t0)} ms`);
    console.log(`skipped ${skippedTotal}: ${list(s.skipped)}`);
    console.log(`labels: ${list(s.labels)}`);
    console.log(`served as non-HTML (extension): ${s.notHtml}; kept without a header block: ${s.noHeaders}`);
    console.log(`seeds: ${s.seeds.join(' ')}`);
    if (s.reachable) console.log(`reachable from the seeds: ${s.reachable.pages} files (${list(s.reachable.labels)})`);
  } catch (err) {
    // one line, never a stack trace
    if (err instanceof TopicrawlError) {
      console.error(`build-webkb: ${err.message} [${err.code}]`);
      process.exit(2);
    }
    console.error(`build-webkb: unexpected error: ${String(err instanceof Error ? err.message : err).split('\n')[0]} [E_INTERNAL]`);
    process.exit(1);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
