/**
 * Where a crawl's CPU goes, thread by thread (issue 16): Linux `perf` attached to the compiled crawl
 * as `bench-crawl.ts` runs it, for a stretch in its middle.
 *
 *   npx tsx scripts/profile-crawl.ts [--corpus /tmp/synth100k] [--topic topics/synth-astronomy.yaml]
 *       [--pages 40000] [--concurrency 16] [--after 10] [--seconds 12] [--freq 999] [--top 15]
 *       [--set KEY=VALUE ...] [--keep DIR] [--jitdump] [--focus NAME ...]
 *   npx tsx scripts/profile-crawl.ts --from DIR/perf-script.txt [--top 15] [--focus NAME ...]
 *
 * The crawl runs as in `bench-crawl.ts` (the corpus served by nginx when present, delay 0, robots.txt
 * off, the topic's strategy) with node's `--perf-basic-prof`, so that `perf` can name JavaScript
 * frames. `--after` seconds into the crawl, `perf record -e cpu-clock -F FREQ -g -p PID` samples
 * every thread of the process for `--seconds` seconds (the software clock: no hardware counters
 * needed, as on this virtual machine). Then `perf script` reads the samples (scripts/perf-threads.ts):
 * each kind of thread's share of the process's samples (the crawl's thread, the analysis thread(s),
 * the WAL checkpoint thread, V8's helper threads), the innermost frames most sampled on each, and
 * the crawl thread's samples by part (SQLite writes, COMMITs, reads, HTTP, the collector, a page's
 * result handled in JavaScript, …). Prints one JSON object with the command; the crawl's own figures
 * (pages, pages/s) beside them. `--keep DIR` keeps perf.data and the `perf script` text there.
 * Also, for each kind of thread, the JavaScript functions with the most samples at or under them
 * (`inclusiveByKind`), and with `--focus NAME` (repeatable), for the most sampled frame whose name
 * holds NAME: its inclusive and self shares, its direct callees and the innermost frames under it
 * (perf-inclusive.ts). `--from FILE` reads a kept `perf script` text instead of running a crawl
 * (the crawl's thread: the one that reaches node's main instance).
 *
 * JavaScript frames are named from the map node writes (/tmp/perf-PID.map, removed afterwards),
 * which lists code as V8 made it: code V8 later freed and whose memory newer code took may still be
 * named as the old (seen once: `^spill`, the run store's spill, which ran only at the crawl's start,
 * as 2% of a crawl thread's samples). The native frames (V8's builtins and collector, SQLite, CLD2,
 * Brotli, the kernel) are exact, and the crawl thread's parts are told by native frames but for
 * undici's JavaScript. `--jitdump` names them exactly instead: node's `--perf-prof` writes every
 * code object with its time into jit-PID.dump (in the crawl's working folder), `perf record -k 1`
 * stamps the samples on the same clock, and `perf inject --jit` gives each sample the code that was
 * there at its time. It costs the crawl more (`--perf-prof` writes each compiled function's code: one
 * run at 648 pages/s and 2.39 ms a page against 925 and 1.74 with the map) and `perf inject` writes
 * an ELF file a function into the crawl's folder, removed with it.
 *
 * Needs `perf` (Debian: linux-perf) allowed to attach to the process (root, or
 * kernel.perf_event_paranoid ≤ 1); says so and exits 1 otherwise. The crawl must still run when
 * the sampling starts: a crawl that ends first is an error, not a figure.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCorpus } from '../src/eval/corpus.js';
import { benchSets, runCliCrawl, sharedBenchOptions } from './bench-cli-crawl.js';
import { startBenchServer } from './bench-server.js';
import { focusOn, inclusiveByKind, mainThreadOf } from './perf-inclusive.js';
import { parsePerfScript, profileThreads, threadKinds, type PerfSample } from './perf-threads.js';

const root = new URL('../', import.meta.url).pathname;
const { values: a } = parseArgs({
  options: {
    ...sharedBenchOptions(root),
    corpus: { type: 'string', default: '/tmp/synth100k' },
    pages: { type: 'string', default: '40000' },
    after: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '12' },
    freq: { type: 'string', default: '999' },
    top: { type: 'string', default: '15' },
    set: { type: 'string', multiple: true, default: [] },
    keep: { type: 'string' },
    jitdump: { type: 'boolean', default: false },
    focus: { type: 'string', multiple: true, default: [] },
    from: { type: 'string' },
  },
});
const fail = (msg: string): never => {
  process.stderr.write(`profile-crawl: ${msg}\n`);
  process.exit(1);
};

/** The samples' report: the threads' shares and parts, the inclusive shares, and each --focus. */
function report(parsed: PerfSample[], pid: number): Record<string, unknown> {
  const profile = profileThreads(parsed, pid, Number(a.top));
  const kinds = threadKinds(parsed, pid);
  const focus = a.focus!.map((name) => ({ name, on: focusOn(parsed, kinds, name, Number(a.top)) }));
  for (const f of focus) if (f.on.length === 0) throw new Error(`--focus ${f.name}: no sampled frame holds it`);
  return { ...profile, inclusiveByKind: inclusiveByKind(parsed, kinds, Number(a.top)), ...(focus.length ? { focus } : {}) };
}

if (a.from) {
  try {
    const parsed = parsePerfScript(readFileSync(a.from, 'utf8'));
    const pid = mainThreadOf(parsed);
    if (pid === null) throw new Error(`${a.from}: no sample of node's main thread (not a perf script text of a crawl?)`);
    process.stdout.write(`${JSON.stringify({ command: `npx tsx scripts/profile-crawl.ts ${process.argv.slice(2).join(' ')}`.trim(), from: a.from, ...report(parsed, pid) }, null, 2)}\n`);
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
  process.exit(0);
}

const check = spawnSync('perf', ['record', '-e', 'cpu-clock', '-o', '/dev/null', '-q', '--', 'true'], { encoding: 'utf8' });
if (check.error || check.status !== 0) {
  fail(`perf cannot record here (${check.error ? 'not found: install linux-perf' : (check.stderr || '').trim().split('\n')[0] || `exit ${check.status}`}); run as root or lower kernel.perf_event_paranoid`);
}
if (!existsSync(join(a.corpus!, 'corpus.json'))) fail(`no corpus at ${a.corpus} (npx tsx scripts/gen-corpus.ts --out ${a.corpus} --pages 105000 --hosts 1000)`);

const corpus = loadCorpus(a.corpus!);
const sets = [...benchSets(Number(a.concurrency), false), ...a.set!];
const dir = a.keep ?? mkdtempSync(join(tmpdir(), 'profile-crawl-'));
mkdirSync(dir, { recursive: true });
const data = join(dir, 'perf.data');
const jitData = join(dir, 'perf.jit.data');
process.env.BENCH_NODE_FLAGS = `${process.env.BENCH_NODE_FLAGS ?? ''} ${a.jitdump ? '--perf-prof' : '--perf-basic-prof'}`.trim();

const server = await startBenchServer(a.corpus!);
let pid = 0;
let recording = null as Promise<number | null> | null;
let timer: NodeJS.Timeout | undefined;
let samples = '';
/** Once the crawl has exited (its folder, with --jitdump's dump, still there): the samples as text. */
async function readSamples(crawlDir: string): Promise<void> {
  clearTimeout(timer);
  if (!recording) throw new Error(`the crawl ended within ${a.after} s, before the sampling began: raise --pages or lower --after`);
  const code = await recording;
  if (code !== 0 || !existsSync(data)) throw new Error(`perf record exited ${code}`);
  if (a.jitdump) {
    const inject = spawnSync('perf', ['inject', '--jit', '-i', data, '-o', jitData], { cwd: crawlDir, encoding: 'utf8' });
    if (inject.status !== 0) throw new Error(`perf inject exited ${inject.status}: ${(inject.stderr || '').trim().split('\n')[0]}`);
  }
  const script = spawnSync('perf', ['script', '-i', a.jitdump ? jitData : data, '-F', 'tid,ip,sym'], { cwd: crawlDir, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (script.status !== 0) throw new Error(`perf script exited ${script.status}: ${(script.stderr || '').trim().split('\n')[0]}`);
  samples = script.stdout;
}

try {
  const crawl = await runCliCrawl({
    topic: a.topic!, hosts: corpus.hosts, server, maxPages: Number(a.pages), sets,
    onSpawn: (p) => {
      pid = p;
      timer = setTimeout(() => {
        const clock = a.jitdump ? ['-k', '1'] : []; // (the dump's timestamps are CLOCK_MONOTONIC)
        const rec = spawn('perf', ['record', '-e', 'cpu-clock', ...clock, '-F', a.freq!, '-g', '-q', '-p', String(p), '-o', data, '--', 'sleep', a.seconds!], { stdio: ['ignore', 'ignore', 'inherit'] });
        recording = new Promise((ok) => {
          rec.on('error', () => ok(-1)); // (could not start: reported as perf record's failure)
          rec.on('close', ok);
        });
      }, Number(a.after) * 1000);
    },
    onExit: readSamples,
  });
  if (a.keep) writeFileSync(join(dir, 'perf-script.txt'), samples);
  const profile = report(parsePerfScript(samples), pid);
  const crawlS = crawl.crawlS;
  process.stdout.write(`${JSON.stringify({
    command: `npx tsx scripts/profile-crawl.ts ${process.argv.slice(2).join(' ')}`.trim(),
    crawl_command: crawl.command,
    server: server.label,
    pages: crawl.fetched,
    pages_per_s: +(crawl.fetched / crawlS).toFixed(0),
    cpu_ms_per_page: +(crawl.cpuMs / crawl.fetched).toFixed(2),
    sampled: { after_s: Number(a.after), seconds: Number(a.seconds), freq_hz: Number(a.freq), js_names: a.jitdump ? 'jitdump' : 'perf map' },
    ...profile,
  }, null, 2)}\n`);
} catch (e) {
  // thrown once the server runs (a failed crawl too), so that it is stopped and the files removed first: one line
  process.stderr.write(`profile-crawl: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
} finally {
  clearTimeout(timer);
  await server.stop();
  if (pid) rmSync(`/tmp/perf-${pid}.map`, { force: true }); // (--perf-basic-prof's symbol map: tens of MB)
  if (!a.keep) rmSync(dir, { recursive: true, force: true });
}
