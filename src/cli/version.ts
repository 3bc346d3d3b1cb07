import { readFileSync } from 'node:fs';

/**
 * topicrawl's version, from its package.json: what `topicrawl --version` prints and WARC files name
 * as their software. Read from this module's folder one level down (src/cli/ or, in the compiled
 * bundle, dist/cli/main.cjs), so the path is the same from the sources and from the build; yargs'
 * own guess found no package.json from the bundle and printed "unknown".
 */
export const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
