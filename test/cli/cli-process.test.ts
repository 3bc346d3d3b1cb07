import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/crawl-corpus.js';
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
    expect(procs.map((r) => r.code)).toEqual([0, 1, 2, 2, 2, 0]); // a file that is not a crawl file is a usage error (2)
    expect(procs.map((r) => r.signal)).toEqual(cases.map(() => null));
    // the same command lines in-process give the same codes and the same output
    expect(inProc.map((r) => r.code)).toEqual(procs.map((r) => r.code));
    expect(inProc.slice(0, 5).map((r) => r.stdout)).toEqual(procs.slice(0, 5).map((r) => r.stdout));
    expect(inProc.map((r) => r.stderr)).toEqual(procs.map((r) => r.stderr));
    expect(procs[0].stdout).toContain('learning');
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

  it('an in-process run leaves the process as it found it: no signal listeners, no exit code, nothing on its own streams', async () => {
    const dir = tmpDir();
    const listeners = () => ['SIGINT', 'SIGTERM'].map((sig) => process.listenerCount(sig));
    const before = listeners();
    const exitCode = process.exitCode;
    const written: string[] = [];
    const spy = (chunk: unknown) => void written.push(String(chunk));
    const [outWrite, errWrite] = [process.stdout.write, process.stderr.write];
    process.stdout.write = ((c: unknown) => (spy(c), true)) as typeof process.stdout.write;
    process.stderr.write = ((c: unknown) => (spy(c), true)) as typeof process.stderr.write;
    let ok;
    let bad;
    try {
      // a crawl with its revisit pass (both listen for Ctrl-C), progress lines on, then a failing one
      ok = await runCli([
        'crawl', join(repoRoot, 'topics/tobacco.yaml'), '--corpus', join(repoRoot, 'corpora/tobacco-demo'), '--db', join(dir, 'c.db'),
        '--max-pages', '8', '--set', 'politeness.delay_ms=0', '--revisit',
      ]);
      bad = await runCli(['crawl', join(dir, 'missing.yaml')]);
    } finally {
      process.stdout.write = outWrite;
      process.stderr.write = errWrite;
    }
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('pages fetched');
    expect(ok.stdout).toContain('recrawl finished');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('missing.yaml');
    expect(listeners()).toEqual(before);
    expect(process.exitCode).toBe(exitCode);
    expect(written).toEqual([]);
  });
});
