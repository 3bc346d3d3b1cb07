import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { childPids, childPidsByParent, processCpuMs, processTreeCpuMs } from '../../scripts/proc-cpu.js';

const linux = existsSync('/proc/self/stat');

describe.skipIf(!linux)('proc-cpu (Linux /proc)', () => {
  it("reads a process's CPU, which grows as it computes", () => {
    const before = processCpuMs(process.pid)!;
    expect(before).toBeGreaterThan(0);
    const t = process.cpuUsage();
    let x = 0;
    while (process.cpuUsage(t).user < 150_000) x += Math.sqrt(x + 1);
    expect(x).toBeGreaterThan(0);
    expect(processCpuMs(process.pid)! - before).toBeGreaterThanOrEqual(100); // (ticks of 10 ms)
  });

  it('adds the CPU of the living descendants, and says null for a process that is not there', async () => {
    const child = spawn(process.execPath, ['-e', 'const t = process.cpuUsage(); while (process.cpuUsage(t).user < 400000); setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      await new Promise((r) => child.once('spawn', r));
      expect(childPids(process.pid)).toContain(child.pid);
      expect(childPidsByParent(process.pid)).toContain(child.pid); // (the way without the children files)
      expect(childPidsByParent(child.pid!)).toEqual([]);
      for (let i = 0; i < 200 && (processCpuMs(child.pid!) ?? 0) < 400; i++) await new Promise((r) => setTimeout(r, 25));
      const own = processCpuMs(process.pid)!;
      const tree = processTreeCpuMs(process.pid)!;
      expect(tree - own).toBeGreaterThanOrEqual(350);
    } finally {
      child.kill();
    }
    expect(processCpuMs(2 ** 30)).toBeNull();
    expect(processTreeCpuMs(2 ** 30)).toBeNull();
    expect(childPids(2 ** 30)).toEqual([]);
    expect(childPidsByParent(2 ** 30)).toEqual([]);
  });
});
