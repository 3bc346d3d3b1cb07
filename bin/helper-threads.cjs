// V8's helper threads (its garbage collector's parallel and concurrent work, its optimising
// compiler) run at the lowest priority, so that on a busy machine they take the CPU the crawl's own
// threads leave rather than share it with them. A crawl keeps both threads that do its work busy
// (the crawl's thread and the page-analysis thread) and on 2 cores these helpers, 0.3 ms of CPU a
// page, took cores from them: niced to 19, 6 alternating pairs of 20,000-page crawls gave 1.8-7.4%
// more pages/s (mean 4.6%; README, Benchmarks). Their work still gets done, in idle moments (the
// machine was ~16% idle during a crawl); what is left of a collection when its helpers lag, the
// thread that collects does itself.
//
// Linux only (a thread's nice value set by its id, read from /proc/self/task); elsewhere nothing
// happens. Called by bin/topicrawl.js first thing, on the main thread: the threads alive then are
// node's own (V8's platform workers, and libuv's pool when started); threads started later (the
// analysis and WAL threads, libuv's on first use) inherit the main thread's priority, unchanged.
// TOPICRAWL_HELPER_NICE=N gives another nice value (0: leave them as they are).
'use strict';
const { readdirSync } = require('node:fs');
const { setPriority } = require('node:os');

const NICE = 19;

/**
 * Sets the nice value of every thread of this process but the calling (main) one. Returns how many
 * threads it changed (0 where threads cannot be listed or reniced: not Linux, a sandbox).
 * @param {number} [nice]
 * @returns {number}
 */
function lowerHelperThreads(nice = niceFromEnv()) {
  if (nice === 0 || process.platform !== 'linux') return 0;
  let tids;
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return 0;
  }
  let changed = 0;
  for (const t of tids) {
    const tid = Number(t);
    if (tid === process.pid) continue;
    try {
      setPriority(tid, nice);
      changed++;
    } catch {
      // the thread ended meanwhile, or the system does not let us: it keeps its priority
    }
  }
  return changed;
}

/** TOPICRAWL_HELPER_NICE when it is a whole number from 0 to 19, else {@link NICE}. */
function niceFromEnv() {
  const v = process.env.TOPICRAWL_HELPER_NICE;
  if (v === undefined || v === '') return NICE;
  const n = Number(v);
  return Number.isInteger(n) && n >= 0 && n <= 19 ? n : NICE;
}

module.exports = { lowerHelperThreads, NICE };
