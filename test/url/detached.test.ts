import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { detached } from '../../src/url/detached.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap bytes still used after keeping `keep(page)` of 200 pages of 200,000 characters each. */
function retained(keep: (page: string) => string): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept: string[] = [];
  for (let i = 0; i < 200; i++) {
    const page = `http://h${i}.example/dir/page.html` + String.fromCharCode(97 + (i % 26)).repeat(200_000);
    kept.push(keep(page));
  }
  gc();
  const used = process.memoryUsage().heapUsed - before;
  expect(kept.every((s, i) => s === `http://h${i}.example/dir/`)).toBe(true);
  return used;
}

describe('detached', () => {
  it('is the same string', () => {
    for (const s of ['', 'a', 'www.example.com', 'x'.repeat(1000), '中文的主机名和目录/']) expect(detached(s)).toBe(s);
  });

  it('keeps only its own characters alive, where a slice keeps the string it came from', () => {
    const slice = (page: string) => page.slice(0, page.indexOf('/page.html') + 1);
    const viaSlice = retained(slice);
    const viaDetached = retained((page) => detached(slice(page)));
    expect(viaSlice).toBeGreaterThan(200 * 200_000 * 0.9); // the pages themselves (one byte a character)
    expect(viaDetached).toBeLessThan(1_000_000);
  });
});
