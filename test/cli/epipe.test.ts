import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/crawl-corpus.js';

describe('output into a reader that stops early', () => {
  it('`topicrawl strategies | head -c 1`: the CLI ends quietly, no stack trace', async () => {
    const cli = `"${process.execPath}" "${join(repoRoot, 'bin/topicrawl.js')}" strategies`;
    // the reader exits after one byte; every later write of the CLI meets a closed pipe
    const child = spawn('sh', ['-c', `${cli} | (head -c 1 >/dev/null)`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  }, 30_000);
});
