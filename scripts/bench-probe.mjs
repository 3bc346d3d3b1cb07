// Preload of scripts/bench-crawl.ts for the crawl it runs: NODE_OPTIONS="--import <this file>" with
// BENCH_PROBE_OUT=<file>. Nothing of the product changes; a normal `topicrawl` run never loads it.
//
// - counts SQLite calls: every execution of a better-sqlite3 statement (Statement run, get, all,
//   iterate: pragma() and a transaction's BEGIN/COMMIT run through these too; counted from the
//   first prepare() on) and every Database exec call, made by the main thread (a worker thread, such as the WAL checkpointer, does not
//   run --import preloads), and times each of them. The wrappers cost two clock reads, a few map
//   updates and one extra call each (well under a microsecond), and the count says how many calls
//   the crawl makes, whatever their cost;
// - at exit, writes one JSON line to BENCH_PROBE_OUT (appended, one line per thread that loaded this
//   file): the thread, its SQLite call counts (in all and by statement), the wall time spent in them
//   (ms, in all and for the costliest statements: performance.now() around each call) and, from the main thread,
//   its event loop utilisation (performance.eventLoopUtilization(): the share of the time since its
//   event loop started that the main thread was busy) and process.resourceUsage() (CPU time of all
//   the process's threads, peak RSS: getrusage(RUSAGE_SELF), kernel figures), with that CPU by kind
//   of thread (threadsCpuMs, from /proc/self/task on Linux: see cpuByThread).
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isMainThread, threadId } from 'node:worker_threads';

const out = process.env.BENCH_PROBE_OUT;

/** CPU ms (user + system) of each live thread of this process, by thread id (Linux /proc; {} elsewhere). */
function threadCpu() {
  const cpu = {};
  let tids = [];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return cpu;
  }
  for (const tid of tids) {
    try {
      // fields after the command's closing parenthesis: state is field 3, utime 14, stime 15
      const f = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      cpu[tid] = ((Number(f[11]) + Number(f[12])) * 1000) / 100;
    } catch {
      // the thread ended meanwhile
    }
  }
  return cpu;
}

/**
 * The process's CPU by kind of thread, in ms (Linux; null elsewhere): main (the crawl's thread),
 * node's own (the threads that existed when this preload ran: V8's garbage-collection and compiler
 * helpers, and libuv's thread pool, which node's loader has started by then), later (threads started
 * after it and still alive at exit) and ended
 * (the rest of the process's CPU: threads that ended before exit, the page-analysis and WAL threads).
 */
function cpuByThread(startTids, totalMs) {
  const now = threadCpu();
  if (Object.keys(now).length === 0) return null;
  const main = now[String(process.pid)] ?? 0;
  let node = 0;
  let later = 0;
  for (const [tid, ms] of Object.entries(now)) {
    if (tid === String(process.pid)) continue;
    if (startTids.has(tid)) node += ms;
    else later += ms;
  }
  return { main, node, later, ended: Math.max(0, totalMs - main - node - later) };
}

function mainFigures(startTids) {
  const usage = process.resourceUsage();
  const threadsCpuMs = cpuByThread(startTids, (usage.userCPUTime + usage.systemCPUTime) / 1000);
  return { usage, elu: performance.eventLoopUtilization(), threadsCpuMs };
}

if (out) {
  const startTids = isMainThread ? new Set(Object.keys(threadCpu())) : new Set();
  const counts = { run: 0, get: 0, all: 0, iterate: 0, exec: 0 };
  // the same calls by statement (its SQL, whitespace collapsed, cut at 90 characters)
  const bySql = new Map();
  // and the time in them (ms, performance.now() around each call)
  const msBySql = new Map();
  let ms = 0;
  // (each SQL's key made once: a regular expression per call would itself cost main-thread time)
  const keys = new Map();
  const keyOf = (sql) => {
    if (typeof sql !== 'string') return '?';
    let k = keys.get(sql);
    if (k === undefined) keys.set(sql, (k = sql.replace(/\s+/g, ' ').slice(0, 90)));
    return k;
  };
  const count = (name, k, took) => {
    counts[name]++;
    bySql.set(k, (bySql.get(k) ?? 0) + 1);
    msBySql.set(k, (msBySql.get(k) ?? 0) + took);
    ms += took;
  };
  const root = new URL('../', import.meta.url).pathname;
  let Database = null;
  try {
    Database = createRequire(`${root}package.json`)('better-sqlite3');
  } catch {
    // no better-sqlite3 where this file is: nothing to count
  }
  if (Database) {
    const wrap = (proto, name) => {
      const orig = proto[name];
      proto[name] = function (...args) {
        const t0 = performance.now();
        try {
          return orig.apply(this, args);
        } finally {
          count(name, keyOf(name === 'exec' ? args[0] : this.source), performance.now() - t0);
        }
      };
    };
    // the Statement class comes from the native addon, which better-sqlite3 loads at the first
    // `new Database`: its methods are wrapped at the first prepare(), so this preload loads nothing
    // native and opens no database (start-up is measured with it)
    const prepare = Database.prototype.prepare;
    Database.prototype.prepare = function (...args) {
      const stmt = prepare.apply(this, args);
      Database.prototype.prepare = prepare;
      for (const m of ['run', 'get', 'all', 'iterate']) wrap(Object.getPrototypeOf(stmt), m);
      return stmt;
    };
    wrap(Database.prototype, 'exec');
  }
  process.on('exit', () => {
    const top = [...bySql].sort((x, y) => y[1] - x[1]).slice(0, 25);
    const msTop = [...msBySql].sort((x, y) => y[1] - x[1]).slice(0, 12).map(([k, v]) => [k, Math.round(v)]);
    const line = { thread: isMainThread ? 'main' : threadId, sqlite: counts, sqliteTop: Object.fromEntries(top), sqliteMs: Math.round(ms), sqliteMsTop: Object.fromEntries(msTop), ...(isMainThread ? mainFigures(startTids) : {}) };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
