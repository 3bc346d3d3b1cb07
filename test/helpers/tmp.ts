import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, onTestFinished } from 'vitest';

/** A fresh temporary folder, removed after the current test (called inside a test or in a describe block). */
export function tmpDir(prefix = 'topicrawl-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    onTestFinished(remove); // inside a test: an afterEach registered there would never run, and the folder stayed
  } catch {
    afterEach(remove);
  }
  return dir;
}

/** A fresh temporary folder for a whole suite (describe block or file), removed after it. */
export function suiteTmpDir(prefix = 'topicrawl-suite-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** `../shared` beside the project's root (the same on developers' machines and in CI). */
export const SHARED_DIR = join(new URL('../../../shared/', import.meta.url).pathname);
