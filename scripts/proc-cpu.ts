/**
 * CPU time of a process and its descendants from Linux's /proc (the benchmarks' corpus server:
 * nginx's master and worker, or the corpus server's child process), so that a benchmark can say
 * what serving a request cost the machine the crawl shares with it. Null where /proc (or the
 * process) is not there.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks a second of /proc's utime and stime (USER_HZ: 100 on Linux's usual architectures). */
const TICKS = 100;

/** utime + stime of one process, in ms (its threads' included); null if it is gone. */
export function processCpuMs(pid: number): number | null {
  try {
    // fields after the command's closing parenthesis: state is field 3, utime 14, stime 15
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop()!.split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / TICKS;
  } catch {
    return null;
  }
}

/**
 * The process's children's ids: from /proc/PID/task/TID/children (every thread's: a child is listed
 * under the thread that made it), or, on a kernel without those files, the processes whose parent
 * (field 4 of /proc/N/stat) is `pid`.
 */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out; // gone
  }
  try {
    for (const tid of tids) {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
    return out;
  } catch {
    // a thread ended meanwhile, or no children files: ask every process for its parent
  }
  return childPidsByParent(pid);
}

/** The processes whose parent (field 4 of /proc/N/stat) is `pid`: childPids' way without the children files. */
export function childPidsByParent(pid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const f = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ').pop()!.split(' ');
      if (Number(f[1]) === pid) found.push(Number(name));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

/** CPU ms of `pid` and all its living descendants; null when `pid` itself cannot be read. */
export function processTreeCpuMs(pid: number): number | null {
  const own = processCpuMs(pid);
  if (own === null) return null;
  let sum = own;
  for (const c of childPids(pid)) sum += processTreeCpuMs(c) ?? 0;
  return sum;
}
