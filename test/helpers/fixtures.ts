import { join } from 'node:path';

/** test/fixtures: the small vectors and golden cases the tests read, with their origin and licence in SOURCE.md. */
export const FIXTURES_DIR = join(new URL('../fixtures/', import.meta.url).pathname);

/** A file of test/fixtures. */
export const fixturePath = (rel: string): string => join(FIXTURES_DIR, rel);
