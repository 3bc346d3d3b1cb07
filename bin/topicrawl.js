#!/usr/bin/env node
// Entry point of the `topicrawl` command: the compiled CLI (dist/cli/main.cjs, run from its code
// cache by load-bundle.cjs) when it is up to date with the sources (runtime.cjs), else the
// TypeScript sources through tsx's ESM loader (1-3 s more to start).
// TOPICRAWL_FROM_SOURCE=1 runs the sources even when dist/ is fresh (scripts/bench-startup.ts).
// Node's default young generation (16 MB semi-spaces), for every command: a 20,000-page crawl peaks at
// 386-388 MB with it and 506-517 MB with --max-semi-space-size=64, at the same speed. The larger one
// pays only with millions of queued URLs (10 million: 1,251 MB → 911 MB, scripts/bench-frontier.ts):
// NODE_OPTIONS=--max-semi-space-size=64 there (README, Benchmarks). The old generation grows by 30%
// past what survives a collection, not V8's up to 4x: v8-flags.cjs. V8's helper threads run at the
// lowest priority: helper-threads.cjs.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
require('./v8-flags.cjs').applyV8Flags();
require('./helper-threads.cjs').lowerHelperThreads();
const root = fileURLToPath(new URL('..', import.meta.url));
if (process.env.TOPICRAWL_FROM_SOURCE !== '1' && require('./runtime.cjs').distIsFresh(root)) {
  const { loadBundle } = require('./load-bundle.cjs');
  await loadBundle(`${root}dist/cli/main.cjs`).exports.main();
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await (await import('../src/cli/main.ts')).main();
}
