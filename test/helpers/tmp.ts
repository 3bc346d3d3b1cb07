import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

/** Folders made outside a running test (describe blocks, file level, beforeAll): removed when the file's tests are done. */
const pending: string[] = [];
// registered when a test file first imports this module, so on that file's suite
afterAll(() => {
  for (const dir of pending.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * Removes `dir` when the current test finishes (called inside a test or a beforeEach/afterEach
 * hook), else when the test file's tests are done (describe blocks, file level, beforeAll: hooks
 * registered while hooks run are not run by vitest, so they cannot be used there).
 */
function removeLater(dir: string): void {
  try {
    onTestFinished(() => rmSync(dir, { recursive: true, force: true })); // throws outside a running test
  } catch {
    pending.push(dir);
  }
}

/** A fresh temporary folder, removed when the current test finishes (outside a test: when the file's tests are done). */
export function tmpDir(prefix = 'topicrawl-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  removeLater(dir);
  return dir;
}

/**
 * A fresh temporary folder for a whole suite (describe block or file), removed after it; and in any
 * case when the file's tests are done (vitest runs no hooks of a suite whose tests are all skipped).
 */
export function suiteTmpDir(prefix = 'topicrawl-suite-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  pending.push(dir);
  return dir;
}

/**
 * `../shared` beside the project's root: material developers have and a fresh clone or CI does not.
 * Only tests over large external data sets may look there, and they skip, saying why, without it.
 */
export const SHARED_DIR = join(new URL('../../../shared/', import.meta.url).pathname);
