/**
 * Builds the compiled CLI: `npm run build` (and `npm ci`, through `prepare`).
 *
 *   npx tsx scripts/build.ts
 *
 * Compiles src/ to dist/ with tsc (tsconfig.build.json: ES2022 modules, source maps), copies the
 * files tsc does not (the Redis frontier's Lua scripts, the plain-JavaScript worker threads),
 * bundles the CLI and the page worker into two CommonJS files (esbuild; undici's unused HTTP/2 client
 * replaced by scripts/build-stubs/undici-client-h2.cjs), records in dist/.build.json the state of
 * src/ it was built from, read before compiling (so that a file changed during the build leaves
 * dist/ stale), and saves the bundles' V8 code caches from a training crawl
 * (scripts/code-cache-training.ts). bin/topicrawl.js runs dist/ only while that record matches src/
 * (bin/runtime.cjs), the sources through tsx otherwise.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { sourceState } from '../bin/runtime.cjs';
import { toAscii } from './ascii-bundle.js';
import { trainCodeCache } from './code-cache-training.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');
const state = sourceState(src);
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
let copied = 0;
for (const e of readdirSync(src, { withFileTypes: true, recursive: true })) {
  if (!e.isFile() || e.name.endsWith('.ts')) continue;
  const from = join(e.parentPath ?? e.path, e.name);
  const to = join(dist, relative(src, from));
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to);
  copied++;
}
// The CLI and the page-analysis thread as two CommonJS bundles (esbuild): dist/cli/main.cjs and
// dist/crawl/page-worker.cjs, each run from V8's code cache by bin/load-bundle.cjs (ES modules have no
// code cache on Node 20). A crawl used to load ~500 files before its first request (undici alone 112,
// ~145 ms; zod 99; yaml 73), then ES module bundles in chunks (README, Start-up). Native addons stay
// packages, and so do the packages a crawl does not load (the Redis client, metrics, WARC, sitemaps'
// XML, legacy charsets): their code is read when a command needs it instead of at every start (a
// 4.0 MB bundle with them, 2.3 MB without; reading and decoding it costs ~7 ms a MB here).
// undici's HTTP/2 client is never used (it needs `allowH2`, which topicrawl does not set): a stub
// instead of it, so the crawl does not load node:http2 before its first request.
const withoutH2: Plugin = {
  name: 'undici-without-h2',
  setup(b) {
    const client = join('undici', 'lib', 'dispatcher', 'client.js');
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      args.importer.endsWith(client) ? { path: join(root, 'scripts', 'build-stubs', 'undici-client-h2.cjs') } : undefined);
  },
};
const buildId = randomBytes(8).toString('hex');
const bundles = { 'cli/main.cjs': 'cli/main.js', 'crawl/page-worker.cjs': 'crawl/page-worker.js' };
for (const [out, entry] of Object.entries(bundles)) {
  await build({
    plugins: [withoutH2],
    entryPoints: [join(dist, entry)],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: join(dist, out),
    external: ['better-sqlite3', 'cld', '@node-rs/*', 'ioredis', 'prom-client', '@opentelemetry/api', 'warcio', 'hash-wasm', 'pako', 'saxes', 'iconv-lite'],
    // paths made from import.meta.url are written from the dist/ (or src/) folder one level down
    // ('../frontier/redis/'): from dist/cli/main.cjs as from the module's own file
    define: { 'import.meta.url': '__topicrawlModuleUrl' },
    // the id names the bundle's code cache (load-bundle.cjs); esbuild keeps a banner's comment first
    banner: { js: `/* topicrawl build ${buildId} */\nconst __topicrawlModuleUrl = require('node:url').pathToFileURL(__filename).href;` },
    charset: 'ascii',
    sourcemap: false,
    logLevel: 'warning',
  });
  // pure ASCII, which load-bundle.cjs decodes as latin1 (see ascii-bundle.ts)
  const file = join(dist, out);
  try {
    writeFileSync(file, toAscii(readFileSync(file, 'utf8')));
  } catch (err) {
    throw new Error(`dist/${out}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
writeFileSync(join(dist, '.build.json'), `${JSON.stringify({ ...state, builtAt: new Date().toISOString() })}\n`);
process.stdout.write(`built dist/ from ${state.count} files of src/ (${copied} copied as they are)\n`);
// the code caches, saved by a short crawl of a loopback site (after .build.json: the crawl runs
// dist/); without them (a machine where the run fails) the bundles are compiled at every start
try {
  const saved = await trainCodeCache(root, buildId, Object.keys(bundles).map((b) => join(dist, b)));
  process.stdout.write(`code caches saved by a ${saved.pages}-page training crawl: ${saved.files.join(', ')}\n`);
} catch (err) {
  process.stderr.write(`warning: no code cache (${err instanceof Error ? err.message : String(err)}): the compiled CLI starts ~70 ms later\n`);
}
