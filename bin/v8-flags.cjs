// The V8 settings of a topicrawl process, applied before it compiles or allocates much: by
// bin/topicrawl.js first thing, and by load-bundle.cjs before it compiles a bundle, because V8
// accepts a code cache only under the flags it was saved with (the build's training crawl runs
// bin/topicrawl.js, so it saves its caches under these). V8's flags are the process's: the
// analysis and checkpoint threads started later run under them too.
//
// --heap-growing-percent=30: after each full garbage collection the old generation may grow to 1.3
// times what survived, instead of V8's own factor (up to 4 when collections are fast). A crawl's
// live heap is small (the main thread's was 39 MB at 20,000 pages) but it allocates much, so with
// V8's factor the main thread's heap held ~100 MB of garbage at the peak (142 MB in all). 20,000 pages on 1,000
// hosts: peak RSS 367-381 MB against 428-488, at the same CPU a page (scripts/bench-crawl.ts,
// README "Memory at 20,000 pages"). Set with v8.setFlagsFromString (NODE_OPTIONS does not take V8 heap
// flags other than the old and young space sizes); V8 reads it at each collection.
'use strict';
const FLAGS = ['--heap-growing-percent=30'];
let applied = false;

/**
 * Applies {@link FLAGS} to this process (once; from the main thread only: a thread started after
 * runs under them already, and V8's flags are not meant to change while other threads run).
 */
function applyV8Flags() {
  if (applied || !require('node:worker_threads').isMainThread) return;
  applied = true;
  const { setFlagsFromString } = require('node:v8');
  for (const f of FLAGS) setFlagsFromString(f);
}

module.exports = { applyV8Flags };
