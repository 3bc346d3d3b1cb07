import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runCliProcess } from '../helpers/run-cli.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * The process around the CLI: bin/topicrawl.js → src/cli/main.ts sets the exit status from
 * runCli's code and prints through the process's own streams. (The other CLI tests run the same
 * runCli in-process; signals, kill -9, EPIPE and stdin streaming have their own process tests.)
 */
describe('the topicrawl process', () => {
  it('exits 0, 1 and 2 as runCli says, with one line on stderr for an error, and prints --help on stdout', async () => {
    const dir = tmpDir();
    const topic = join(dir, 'bad.yaml');
    writeFileSync(topic, 'name: t\nseeds:\n  - http://a.example/\nstrategy:\n  x: lots\n');
    const junk = join(dir, 'junk.db');
    writeFileSync(junk, 'this is not sqlite');
    const cases = [
      ['strategies'],
      ['normalize', 'http://A.example/', 'mailto:x@a.example'],
      ['stats', junk],
      ['crawl', topic, '--db', join(dir, 'x.db')],
      ['no-such-command'],
      ['--help'],
    ];
    // one process per case, all at once (each start of node and tsx costs seconds on a loaded machine)
    const [procs, inProc] = await Promise.all([Promise.all(cases.map((c) => runCliProcess(c))), Promise.all(cases.map((c) => runCli(c)))]);
    expect(procs.map((r) => r.code)).toEqual([0, 1, 1, 2, 2, 0]);
    expect(procs.map((r) => r.signal)).toEqual(cases.map(() => null));
    // the same command lines in-process give the same codes and the same output
    expect(inProc.map((r) => r.code)).toEqual(procs.map((r) => r.code));
    expect(inProc.slice(0, 5).map((r) => r.stdout)).toEqual(procs.slice(0, 5).map((r) => r.stdout));
    expect(inProc.map((r) => r.stderr)).toEqual(procs.map((r) => r.stderr));
    expect(procs[0].stdout).toContain('best-first-fish');
    expect(procs[1].stdout).toBe('http://a.example/\n\n');
    for (const r of procs.slice(1, 5)) {
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(procs[3].stderr).toContain('strategy.x');
    expect(procs[4].stderr).toMatch(/^topicrawl: .*no-such-command.* \[E_USAGE\]\n$/);
    // help text (its line wrapping may follow the terminal, so not compared byte for byte)
    for (const r of [procs[5], inProc[5]]) {
      expect(r.stdout).toContain('topicrawl <command> [options]');
      expect(r.stdout).toContain('crawl <topic>');
      expect(r.stderr).toBe('');
    }
  });
});
