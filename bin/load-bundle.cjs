// Runs one of the build's CommonJS bundles (dist/cli/main.cjs, dist/crawl/page-worker.cjs: see
// scripts/build.ts) from V8's code cache, the compiled form of its functions that the build saved
// after a training crawl, so that start-up deserialises instead of parsing and compiling.
// ES modules have no code cache on Node 20 (module.enableCompileCache is Node 22), hence CommonJS
// bundles compiled here with vm.Script: the first request of a one-page crawl 350 → 280 ms (README,
// Start-up).
//
// The cache is used only when it was saved from this very build of the bundle: its name carries the
// build id written in the bundle's first line (V8 itself checks only the source's length, its own
// version and flags). A cache V8 rejects (another Node.js, other flags) costs the compile it would
// have saved, nothing else. TOPICRAWL_CODE_CACHE=write (the build's training run) compiles without
// the cache and saves it when the process or thread exits.
'use strict';
const { readFileSync, renameSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname } = require('node:path');
const vm = require('node:vm');
const { applyV8Flags } = require('./v8-flags.cjs');

const ID = /^\/\* topicrawl build ([0-9a-f]+) \*\//;

/** The code cache file of `bundle` as built with id `id`. */
function cachePath(bundle, id) {
  return `${bundle}.${id}.v8cache`;
}

/**
 * Compiles `bundle` (a CommonJS file written by the build) wrapped as require() wraps a module, from
 * its code cache when there is a valid one. `cached`: the cache was there and V8 accepted it.
 * @param {string} bundle absolute path
 * @returns {{ script: import('node:vm').Script, id: string | undefined, cached: boolean }}
 */
function compileBundle(bundle) {
  // the process's V8 flags, as the training crawl had them when it saved the cache
  applyV8Flags();
  // esbuild's output made pure ASCII by the build (scripts/ascii-bundle.ts): latin1 is the cheapest
  // decoding of it (utf8 took twice as long for the 2 MB bundle)
  const source = readFileSync(bundle, 'latin1');
  const id = ID.exec(source)?.[1];
  let cachedData;
  if (id && process.env.TOPICRAWL_CODE_CACHE !== 'write') {
    try {
      cachedData = readFileSync(cachePath(bundle, id));
    } catch {
      // no cache (a build whose training run failed): compiled as any script
    }
  }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  // (cachedDataRejected is set only when V8 was given a cache)
  return { script, id, cached: script.cachedDataRejected === false };
}

/**
 * Runs `bundle` as require() would, compiled by compileBundle. Returns its exports, and whether it
 * ran from its code cache. With TOPICRAWL_CODE_CACHE=write, saves the cache when the process (or
 * the thread) exits.
 * @param {string} bundle absolute path
 * @returns {{ exports: any, cached: boolean }}
 */
function loadBundle(bundle) {
  const { script, id, cached } = compileBundle(bundle);
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  if (process.env.TOPICRAWL_CODE_CACHE === 'write' && id) {
    // at exit, so that the cache holds every function the run compiled, not only the top level;
    // through a temporary file, as two threads running the same bundle both write it
    process.once('exit', () => {
      const tmp = `${cachePath(bundle, id)}.${process.pid}.${require('node:worker_threads').threadId}`;
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cachePath(bundle, id));
    });
  }
  return { exports: module.exports, cached };
}

module.exports = { compileBundle, loadBundle, cachePath };
