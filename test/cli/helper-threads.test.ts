import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NICE } from '../../bin/helper-threads.cjs';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * In a fresh node process: the nice value of every thread, then lowerHelperThreads(), then every
 * thread's again and that of a worker thread started after it. Printed as JSON.
 */
const PROBE = `
const { readdirSync, readFileSync } = require('node:fs');
const { Worker } = require('node:worker_threads');
const { lowerHelperThreads } = require(${JSON.stringify(join(repoRoot, 'bin/helper-threads.cjs'))});
// field 19 of /proc/<tid>/stat, the 17th after the command's closing parenthesis
const nices = () => Object.fromEntries(readdirSync('/proc/self/task').map((t) => [t, Number(readFileSync('/proc/self/task/' + t + '/stat', 'utf8').split(') ')[1].split(' ')[16])]));
const before = nices();
const changed = lowerHelperThreads();
const after = nices();
const w = new Worker('require("node:worker_threads").parentPort.postMessage(require("node:fs").readFileSync("/proc/thread-self/stat", "utf8").split(") ")[1].split(" ")[16])', { eval: true });
w.once('message', (workerNice) => {
  process.stdout.write(JSON.stringify({ pid: process.pid, before, changed, after, workerNice: Number(workerNice) }));
  w.terminate();
});
`;

interface Probe {
  pid: number;
  before: Record<string, number>;
  changed: number;
  after: Record<string, number>;
  workerNice: number;
}

function probe(env: Record<string, string> = {}): Probe {
  const r = spawnSync(process.execPath, ['-e', PROBE], { encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`probe failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Probe;
}

describe.skipIf(process.platform !== 'linux')('lowerHelperThreads (Linux: threads reniced by id)', () => {
  it('lowers every thread alive at the call but the main one; a thread started later keeps the main thread\'s priority', () => {
    const p = probe({ TOPICRAWL_HELPER_NICE: '' });
    const helpers = Object.keys(p.before).filter((t) => Number(t) !== p.pid);
    expect(helpers.length).toBeGreaterThan(0); // (node starts V8's platform threads before any script)
    expect(p.changed).toBe(helpers.length);
    expect(p.after[String(p.pid)]).toBe(p.before[String(p.pid)]);
    for (const t of helpers) if (t in p.after) expect(p.after[t]).toBe(NICE);
    expect(NICE).toBe(19);
    expect(p.workerNice).toBe(p.before[String(p.pid)]);
  });

  it('takes TOPICRAWL_HELPER_NICE (0: nothing changes; a value out of 0-19 or not a number: the default)', () => {
    const off = probe({ TOPICRAWL_HELPER_NICE: '0' });
    expect(off.changed).toBe(0);
    expect(off.after).toEqual(off.before);
    const five = probe({ TOPICRAWL_HELPER_NICE: '5' });
    for (const t of Object.keys(five.before)) if (Number(t) !== five.pid && t in five.after) expect(five.after[t]).toBe(5);
    for (const bad of ['abc', '25', '-3', '2.5']) {
      const p = probe({ TOPICRAWL_HELPER_NICE: bad });
      for (const t of Object.keys(p.before)) if (Number(t) !== p.pid && t in p.after) expect(p.after[t]).toBe(NICE);
    }
  });
});

describe.skipIf(process.platform === 'linux')('lowerHelperThreads (not Linux)', () => {
  it('does nothing', async () => {
    const { lowerHelperThreads } = await import('../../bin/helper-threads.cjs');
    expect(lowerHelperThreads()).toBe(0);
  });
});
