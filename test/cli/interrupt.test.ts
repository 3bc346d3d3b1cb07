import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRows, repoRoot } from '../helpers/crawl-corpus.js';
import { runCli } from '../helpers/run-cli.js';
import { tmpDir } from '../helpers/tmp.js';

/** Ctrl-C (SIGINT) stops the CLI gracefully: requests in flight finish, the state is written, exit 0. */
describe('Ctrl-C', () => {
  it('stops gracefully and the same command resumes to the end', async () => {
    const db = join(tmpDir(), 'int.db');
    const args = [
      join(repoRoot, 'bin/topicrawl.js'), 'crawl', join(repoRoot, 'topics/tobacco.yaml'), '--corpus', join(repoRoot, 'corpora/tobacco-demo'),
      '--db', db, '--set', 'politeness.concurrency=2', '--set', 'limits.max_pages=60',
    ];
    // slow enough to be caught in the middle: 0.5 s between two requests to a host
    const slow = [...args, '--set', 'politeness.delay_ms=500'];
    const child = spawn(process.execPath, slow, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      // plain progress lines (not a terminal): interrupt after the first one
      if (/fetched=\d+/.test(stderr) && !child.killed) child.kill('SIGINT');
    });
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code).toBe(0);
    expect(stdout).toContain('stopped (interrupted');
    expect(stderr).toContain('stopping');
    const first = readRows(db);
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThan(60);

    // the same command (a faster politeness setting is allowed on resume)
    const again = await runCli([...args.slice(1), '--set', 'politeness.delay_ms=0', '--json']);
    expect(again.code).toBe(0);
    const s = JSON.parse(again.stdout) as { resumed: boolean; fetched: number; reason: string };
    expect(s).toMatchObject({ resumed: true, fetched: 60, reason: 'max-pages' });
    const urls = readRows(db).map((r) => r.url);
    expect(new Set(urls).size).toBe(60);
  });
});
