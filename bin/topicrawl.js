#!/usr/bin/env node
// Entry point of the `topicrawl` command: runs the TypeScript CLI through tsx's ESM loader.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
