#!/usr/bin/env -S node --max-semi-space-size=64
// Entry point of the `topicrawl` command: the compiled CLI (dist/, see runtime.js) when it is up to
// date with the sources, else the TypeScript sources through tsx's ESM loader (1-3 s more to start).
// TOPICRAWL_FROM_SOURCE=1 runs the sources even when dist/ is fresh (scripts/bench-startup.ts).
// The larger young generation (64 MB semi-spaces) keeps the short-lived objects of link batches out
// of the old generation: at 10 million queued URLs peak RSS 1,251 MB → 911 MB (scripts/bench-frontier.ts).
import { fileURLToPath } from 'node:url';
import { distIsFresh } from './runtime.js';

if (process.env.TOPICRAWL_FROM_SOURCE !== '1' && distIsFresh(fileURLToPath(new URL('..', import.meta.url)))) {
  await import('../dist/cli/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
