import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';

/** A fresh temporary folder, removed after the current test. */
export function tmpDir(prefix = 'topicrawl-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
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
