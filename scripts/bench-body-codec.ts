/**
 * Body compression for the crawl file (issue 16, point 2): what each codec and level costs per page
 * and what it saves, on the pages of a corpus, in one run.
 *
 *   npx tsx scripts/bench-body-codec.ts [--corpus corpora/synth] [--pages 3000] [--rounds 3]
 *
 * Every page is compressed one at a time, as the store does (Node's zlib, synchronous, in this
 * thread): Brotli at qualities 0, 1 (the store's), 2, 4 and 6 in text mode, gzip at levels 1 and 6.
 * zstd is not in Node 20's zlib; when Debian's `zstd` is installed its own benchmark mode
 * (`zstd -b<level>`, in-memory, the pages as separate files, each compressed alone) gives its figures
 * for levels 1 and 3, for comparison only (C without Node's per-call cost, so somewhat flattering).
 * Prints per codec: compressed ÷ raw bytes, MB/s of raw HTML, µs per page (best of --rounds), and
 * the command. A corpus with no pages is an error.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants as zc, gzipSync } from 'node:zlib';

const { values: a } = parseArgs({
  options: {
    corpus: { type: 'string', default: 'corpora/synth' },
    pages: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '3' },
  },
});
const want = Number(a.pages);

/** The corpus's HTML files (site/<host>/…), in a fixed order, up to `want`. */
function pages(dir: string): Buffer[] {
  const out: Buffer[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      if (out.length >= want) return;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.html?$/.test(name)) out.push(readFileSync(p));
    }
  };
  walk(join(dir, 'site'));
  return out;
}

const bodies = pages(a.corpus!);
if (bodies.length === 0) {
  process.stderr.write(`bench-body-codec: no HTML pages under ${join(a.corpus!, 'site')} (npm run gen-corpus makes corpora/synth)\n`);
  process.exit(1);
}
const raw = bodies.reduce((s, b) => s + b.length, 0);

const brotli = (q: number) => (b: Buffer) => brotliCompressSync(b, { params: { [zc.BROTLI_PARAM_QUALITY]: q, [zc.BROTLI_PARAM_MODE]: zc.BROTLI_MODE_TEXT } });
const codecs: [string, (b: Buffer) => Buffer][] = [
  ['brotli q0', brotli(0)], ['brotli q1 (the store\'s)', brotli(1)], ['brotli q2', brotli(2)], ['brotli q4', brotli(4)], ['brotli q6', brotli(6)],
  ['gzip 1', (b) => gzipSync(b, { level: 1 })], ['gzip 6', (b) => gzipSync(b, { level: 6 })],
];

type Row = { codec: string; ratio: number; mb_per_s: number; us_per_page: number };
const rows: Row[] = [];
for (const [name, f] of codecs) {
  let best = Infinity;
  let size = 0;
  for (let r = 0; r < Number(a.rounds); r++) {
    size = 0;
    const t0 = performance.now();
    for (const b of bodies) size += f(b).length;
    best = Math.min(best, performance.now() - t0);
  }
  rows.push({ codec: name, ratio: +(size / raw).toFixed(3), mb_per_s: +(raw / 2 ** 20 / (best / 1000)).toFixed(1), us_per_page: +((best * 1000) / bodies.length).toFixed(1) });
}

// zstd through its own benchmark mode, if installed
const zstd = spawnSync('zstd', ['--version'], { encoding: 'utf8' });
let zstdNote = 'zstd: not installed (apt-get install zstd), skipped';
if (zstd.status === 0) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-codec-'));
  try {
    bodies.forEach((b, i) => writeFileSync(join(dir, `${i}.html`), b));
    for (const level of [1, 3]) {
      // -b<level>: in-memory benchmark of the files, each compressed alone (one consolidated line)
      const r = spawnSync('zstd', [`-b${level}`, '-i2', '-q', '-r', dir], { encoding: 'utf8' });
      const text = `${r.stdout}${r.stderr}`;
      // quiet: "-<level>  <raw bytes> (<raw ÷ compressed>) <compression MB/s> MB/s <decompression MB/s> MB/s <n> files"
      const m = /-\d+\s+(\d+)\s+\(([\d.]+)\)\s+([\d.]+)\s*MB\/s/.exec(text);
      if (!m) throw new Error(`could not read zstd -b${level}: ${text.trim().split('\n').pop()}`);
      const mbs = Number(m[3]); // (zstd's MB: 10^6 bytes)
      rows.push({ codec: `zstd ${level} (its CLI benchmark)`, ratio: +(1 / Number(m[2])).toFixed(3), mb_per_s: +((mbs * 1e6) / 2 ** 20).toFixed(1), us_per_page: +((raw / bodies.length / (mbs * 1e6)) * 1e6).toFixed(1) });
    }
    zstdNote = `zstd: ${zstd.stdout.trim().split('\n')[0]}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(JSON.stringify({
  command: `npx tsx scripts/bench-body-codec.ts ${process.argv.slice(2).join(' ')}`.trim(),
  corpus: a.corpus, pages: bodies.length, raw_mb: +(raw / 2 ** 20).toFixed(1), mean_page_bytes: Math.round(raw / bodies.length),
  zstd: zstdNote, codecs: rows,
}, null, 2));
