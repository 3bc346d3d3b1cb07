import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/crawl-corpus.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * The analysis threads run a native module (CLD2, the language detector). A thread terminated
 * while it runs native code aborts the whole process ("terminate called after throwing an instance
 * of 'Napi::Error'"; `worker.terminate()` did, with pages in flight): the pool's close lets each
 * thread end by itself after the pages sent to it. Pools closed with many pages in flight, in a
 * process of their own.
 */
describe('AnalyzerPool.close', () => {
  it('never aborts the process, even with pages in flight', () => {
    const script = join(tmpDir(), 'pools.mts');
    writeFileSync(script, `
      import { AnalyzerPool } from ${JSON.stringify(join(repoRoot, 'src/crawl/analyzer-pool.ts'))};
      const cfg = { keywords: { a: 1 }, fields: { title: 3, headings: 2, anchor: 2, body: 1 }, scope: { hosts: [], include: [], exclude: [] },
        scopeOptions: { maxUrlLength: 2048, excludeTraps: true, maxRepeatedSegments: 3 }, normalize: { stripParams: [], keepDefaultStripList: true, sortQuery: true },
        followCanonical: true, simhash: { words: 3, cjk: 3, minLineWords: 20 }, language: true };
      const body = new TextEncoder().encode('<p>' + 'The telescope sees a distant galaxy tonight. '.repeat(100) + '</p>');
      let done = 0;
      for (let i = 0; i < 4; i++) {
        const pool = new AnalyzerPool(cfg, 2);
        const inflight = Array.from({ length: 100 }, () => pool.analyze({ url: 'http://a.example/', host: 'a.example', body, contentType: 'text/html', html: true, anchors: [] }));
        await inflight[2];
        await pool.close();
        for (const p of inflight) if ((await p).simhash) done++;
      }
      console.log('analysed', done);
    `);
    const r = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: repoRoot, encoding: 'utf8', timeout: 240_000 });
    expect(r.stderr).not.toContain('terminate called');
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('analysed 400'); // every page sent before the close was analysed
  }, 300_000);
});
