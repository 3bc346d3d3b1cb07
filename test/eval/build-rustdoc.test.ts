import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCorpus, relevantUrls } from '../../src/eval/corpus.js';
import { buildRustdocCorpus, defaultRustdocSource, labelsOf, RUSTDOC_HOST } from '../../scripts/build-rustdoc.js';
import { tmpDir } from '../helpers/tmp.js';

describe('the Rust documentation corpus (scripts/build-rustdoc.ts)', () => {
  it('labels pages by their place in the documentation', () => {
    expect(labelsOf('std/sync/struct.Mutex.html')).toEqual(['concurrency']);
    expect(labelsOf('book/ch16-01-threads.html')).toEqual(['concurrency']);
    expect(labelsOf('std/collections/struct.HashMap.html')).toEqual(['collections']);
    expect(labelsOf('book/ch08-03-hash-maps.html')).toEqual(['collections']);
    expect(labelsOf('std/fs/fn.read.html')).toEqual(['io']);
    expect(labelsOf('rust-by-example/std_misc/file/open.html')).toEqual(['io']);
    expect(labelsOf('book/ch09-02-recoverable-errors-with-result.html')).toEqual(['error-handling']);
    expect(labelsOf('nomicon/aliasing.html')).toEqual(['unsafe']);
    expect(labelsOf('nomicon/arc-and-mutex.html').sort()).toEqual(['concurrency', 'unsafe']);
    expect(labelsOf('error_codes/E0382.html')).toEqual(['compiler-errors']);
    expect(labelsOf('std/primitive.u8.html')).toEqual([]);
    expect(labelsOf('book/ch03-02-data-types.html')).toEqual([]);
  });

  it('builds a corpus the corpus loader accepts from a documentation tree, leaving out what it should', () => {
    const src = tmpDir('rustdoc-src-');
    const page = (rel: string, links: string[]) => {
      mkdirSync(dirname(join(src, rel)), { recursive: true });
      writeFileSync(join(src, rel), `<html><head><title>${rel}</title></head><body>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`);
    };
    page('index.html', ['std/index.html', 'book/index.html']);
    page('std/index.html', ['sync/index.html', '../core/index.html']);
    page('std/sync/index.html', ['struct.Mutex.html']);
    page('std/sync/struct.Mutex.html', []);
    page('book/index.html', ['ch16-01-threads.html']);
    page('book/ch16-01-threads.html', []);
    page('book/print.html', []);
    page('core/index.html', []);
    page('rust-by-example/index.html', []);
    page('rust-by-example/ja/index.html', []);
    writeFileSync(join(src, 'std', 'style.css'), 'body {}');
    const out = join(tmpDir('rustdoc-out-'), 'rustdoc');
    const s = buildRustdocCorpus(src, out);
    expect(s.pages).toBe(7);
    expect(s.labels.concurrency).toBe(3);
    expect(s.unlabelled).toBe(4);
    const corpus = loadCorpus(out);
    expect(corpus.meta.seeds).toEqual([`http://${RUSTDOC_HOST}/index.html`]);
    const relevant = relevantUrls(corpus, 'concurrency');
    expect([...relevant].sort()).toEqual([
      `http://${RUSTDOC_HOST}/book/ch16-01-threads.html`, `http://${RUSTDOC_HOST}/std/sync/index.html`, `http://${RUSTDOC_HOST}/std/sync/struct.Mutex.html`,
    ]);
    // left out: core, a translation, a whole-book print page, and everything that is not HTML
    for (const gone of ['core/index.html', 'rust-by-example/ja/index.html', 'book/print.html', 'std/style.css']) {
      expect(existsSync(join(out, 'site', RUSTDOC_HOST, gone))).toBe(false);
    }
    expect(readFileSync(join(out, 'site', RUSTDOC_HOST, 'std/sync/struct.Mutex.html'), 'utf8')).toMatch(/struct\.Mutex/);
    // built again: replaced, the same
    expect(buildRustdocCorpus(src, out).pages).toBe(7);
  });

  it('refuses a folder without the documentation', () => {
    expect(() => buildRustdocCorpus(tmpDir('rustdoc-empty-'), join(tmpDir('rustdoc-out-'), 'x'))).toThrow(/no Rust documentation/);
    // (the default source is the first stable toolchain's, when rustup installed one)
    const found = defaultRustdocSource();
    if (found !== null) expect(existsSync(join(found, 'std', 'index.html'))).toBe(true);
  });
});
