/**
 * Builds the Rust documentation corpus: a real, densely linked web of technical pages, labelled by
 * subject, from the documentation rustup installs with a toolchain (std's API docs, The Rust
 * Programming Language, Rust by Example, the Reference, the Rustonomicon, Cargo's and rustc's books,
 * the compiler's error index, …), in the corpus format of DESIGN.md:
 *
 *   npx tsx scripts/build-rustdoc.ts [--src DIR] [--out corpora/rustdoc]
 *
 * `--src` defaults to $RUSTDOC_SRC, else the first ~/.rustup/toolchains/stable-*\/share/doc/rust/html;
 * without it: a one-line error, exit 2. The pages are served as http://doc.rust-lang.org/<path> (the
 * corpus server maps the host to loopback). Files are hard-linked when the source is on the same
 * file system (copied otherwise), never changed. Left out: `core` (41,000 pages, mostly the
 * architecture intrinsics; std's pages cover the same API), `alloc` (re-exported by std),
 * `unstable-book`, `src` (source listings), Rust by Example's translations, and mdBook's one-page
 * `print.html` copies of whole books. Links to left-out pages are dead links, as on the live site
 * when a crawl is scoped.
 *
 * Labels come from where a page sits (the path rules in LABELS, written from the books' tables of
 * contents and std's module tree, not from the texts); a page may have several, most have none:
 * concurrency, collections, io, error-handling, unsafe, compiler-errors.
 * Deterministic: the same documentation gives the same corpus.
 */
import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';

export const RUSTDOC_HOST = 'doc.rust-lang.org';

/** Sections (top-level folders) taken. */
export const SECTIONS = [
  'std', 'book', 'rust-by-example', 'reference', 'nomicon', 'cargo', 'edition-guide', 'error_codes', 'rustc',
  'embedded-book', 'rustdoc', 'style-guide', 'proc_macro', 'test',
];

/** label → [description, path rule] (paths relative to the documentation root). */
export const LABELS: Readonly<Record<string, readonly [string, RegExp]>> = {
  concurrency: [
    'threads, shared state, message passing, atomics and async: std::thread and std::sync, the book\'s concurrency and async chapters, Rust by Example\'s threads and channels, the Rustonomicon\'s concurrency part',
    /^(std\/(thread|sync|future|task)\/|book\/ch16-|book\/ch17-0[0-6]-(async|futures|concurrency|more-futures|streams|traits-for-async)|book\/ch20-02-multithreaded|rust-by-example\/std_misc\/(threads|channels)|nomicon\/(concurrency|send-and-sync|atomics|races|arc-))/,
  ],
  collections: [
    'collections: std::collections and std::vec, the book\'s collections chapter, Rust by Example\'s Vec and HashMap pages',
    /^(std\/(collections|vec)\/|book\/ch08-|rust-by-example\/std\/(vec|hash))/,
  ],
  io: [
    'input and output: std::io, std::fs, std::path, std::net, std::process, the book\'s I/O project, Rust by Example\'s file, path and process pages',
    /^(std\/(io|fs|path|net|process)\/|book\/ch12-|book\/ch20-01-single-threaded|rust-by-example\/std_misc\/(file|fs|path|process))/,
  ],
  'error-handling': [
    'error handling in programs: std::error and std::result, the book\'s error-handling chapter, Rust by Example\'s error section',
    /^(std\/(error|result)\/|book\/ch09-|rust-by-example\/error|rust-by-example\/std\/(result|panic))/,
  ],
  unsafe: [
    'unsafe Rust: the Rustonomicon, std::ptr and std::mem, the book\'s unsafe chapter, the Reference\'s unsafety pages',
    /^(nomicon\/|std\/(ptr|mem)\/|book\/ch(19|20)-01-unsafe-rust|reference\/(unsafe|behavior-not-considered-unsafe|behavior-considered-undefined))/,
  ],
  'compiler-errors': ['the compiler\'s error index: one page per error code (what it means, erroneous code, how to fix it)', /^error_codes\//],
};

export interface RustdocBuildStats {
  out: string;
  pages: number;
  bytes: number;
  labels: Record<string, number>;
  unlabelled: number;
  seeds: string[];
  linked: boolean;
}

/** The documentation folder of the first stable toolchain rustup installed, or null. */
export function defaultRustdocSource(): string | null {
  const env = process.env.RUSTDOC_SRC;
  if (env) return env;
  const root = join(homedir(), '.rustup', 'toolchains');
  if (!existsSync(root)) return null;
  for (const t of readdirSync(root).sort()) {
    const dir = join(root, t, 'share', 'doc', 'rust', 'html');
    if (t.startsWith('stable-') && existsSync(join(dir, 'std', 'index.html'))) return dir;
  }
  return null;
}

/** The labels of a page by its path relative to the documentation root. */
export function labelsOf(path: string): string[] {
  return Object.entries(LABELS).filter(([, [, re]]) => re.test(path)).map(([l]) => l);
}

function* htmlFiles(dir: string): Iterable<string> {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* htmlFiles(p);
    else if (e.isFile() && e.name.endsWith('.html')) yield p;
  }
}

const SKIP = [/^rust-by-example\/(es|ja|ko|zh|pt-BR|fr)\//, /(^|\/)print\.html$/];

export function buildRustdocCorpus(src: string, out: string): RustdocBuildStats {
  if (!existsSync(join(src, 'std', 'index.html'))) throw new Error(`no Rust documentation at ${src} (std/index.html is missing)`);
  const tmp = `${out}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const site = join(tmp, 'site', RUSTDOC_HOST);
  const rows: string[] = [];
  const counts: Record<string, number> = Object.fromEntries(Object.keys(LABELS).map((l) => [l, 0]));
  let unlabelled = 0;
  let bytes = 0;
  let linked = true;
  // a toolchain without one of the books (a minimal profile) gives a corpus without it
  const files = ['index.html', ...SECTIONS.filter((s) => existsSync(join(src, s))).flatMap((s) => [...htmlFiles(join(src, s))].map((f) => relative(src, f)))];
  for (const rel of files) {
    if (SKIP.some((re) => re.test(rel))) continue;
    const to = join(site, rel);
    mkdirSync(dirname(to), { recursive: true });
    try {
      linkSync(join(src, rel), to);
    } catch {
      linked = false;
      copyFileSync(join(src, rel), to);
    }
    bytes += statSync(to).size;
    const labels = labelsOf(rel);
    for (const l of labels) counts[l]++;
    if (labels.length === 0) unlabelled++;
    rows.push(`http://${RUSTDOC_HOST}/${rel}\t${labels.join(',')}`);
  }
  const seeds = [`http://${RUSTDOC_HOST}/index.html`];
  const corpus = {
    name: 'rustdoc',
    description: `The Rust documentation a toolchain installs (${SECTIONS.join(', ')}), as rustup put it in ${src}: API pages generated by rustdoc and books generated by mdBook, linked as on doc.rust-lang.org. Built by scripts/build-rustdoc.ts; labels from each page's place in the documentation (see LABELS there).`,
    license: 'MIT OR Apache-2.0 (the Rust project\'s documentation); not copied into this repository.',
    seeds,
    labels: Object.fromEntries(Object.entries(LABELS).map(([l, [d]]) => [l, d])),
  };
  writeFileSync(join(tmp, 'corpus.json'), `${JSON.stringify(corpus, null, 2)}\n`);
  writeFileSync(join(tmp, 'labels.tsv'), `url\tlabels\n${rows.join('\n')}\n`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(dirname(resolve(out)), { recursive: true });
  renameSync(tmp, out);
  return { out, pages: rows.length, bytes, labels: counts, unlabelled, seeds, linked };
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('build-rustdoc.ts')) {
  const { values: a } = parseArgs({ options: { src: { type: 'string' }, out: { type: 'string', default: 'corpora/rustdoc' } } });
  const src = a.src ?? defaultRustdocSource();
  if (!src || !existsSync(src)) {
    process.stderr.write(`build-rustdoc: no Rust documentation found (${src ?? '~/.rustup/toolchains/stable-*/share/doc/rust/html'}); install a toolchain with rustup or pass --src DIR\n`);
    process.exit(2);
  }
  try {
    const t0 = performance.now();
    const s = buildRustdocCorpus(src, a.out!);
    process.stdout.write(`${s.out}: ${s.pages} pages, ${(s.bytes / 1e6).toFixed(0)} MB (${s.linked ? 'hard links' : 'copies'}) in ${Math.round(performance.now() - t0)} ms\n`);
    process.stdout.write(`labels: ${Object.entries(s.labels).map(([l, n]) => `${l} ${n}`).join(', ')}; unlabelled ${s.unlabelled}\n`);
    process.stdout.write(`seeds: ${s.seeds.join(' ')}\n`);
  } catch (err) {
    process.stderr.write(`build-rustdoc: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
}

