/**
 * Builds the compiled CLI: `npm run build` (and `npm ci`, through `prepare`).
 *
 *   npx tsx scripts/build.ts
 *
 * Compiles src/ to dist/ with tsc (tsconfig.build.json: ES2022 modules, source maps), copies the
 * files tsc does not (the Redis frontier's Lua scripts, the plain-JavaScript worker threads), and
 * replaces dist/cli/yargs-lib.js with one esbuild bundle of yargs (one file to load instead of ~30
 * modules: `topicrawl --help` 340 → see README), bundles the CLI and the page worker (undici's unused
 * HTTP/2 client replaced by scripts/build-stubs/undici-client-h2.cjs), and
 * records in dist/.build.json the state of src/ it was built from, read before compiling (so that
 * a file changed during the build leaves dist/ stale). bin/topicrawl.js runs dist/ only while that
 * record matches src/ (bin/runtime.js), the sources through tsx otherwise.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, buildSync, type Plugin } from 'esbuild';
import { sourceState } from '../bin/runtime.js';

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
// yargs and its dependencies in one ES module; `require` for the CommonJS parts, and y18n's locale
// files are not found from the bundle, so messages stay in English whatever LANG says
buildSync({
  stdin: { contents: "export { default } from 'yargs';\nexport { hideBin } from 'yargs/helpers';\n", resolveDir: root, loader: 'js' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile: join(dist, 'cli', 'yargs-lib.js'),
  banner: { js: "import { createRequire as __topicrawlRequire } from 'node:module';\nconst require = __topicrawlRequire(import.meta.url);" },
  logLevel: 'warning',
  allowOverwrite: true,
});
// the CLI and the page worker as ES module bundles (undici, zod, yaml, parse5, ... and our own modules
// in a few files instead of ~500: start-up, see README "Start-up"), over the tsc output of the same
// name; the commands' modules in chunks loaded when a command needs them (`splitting`). Chunks go to
// dist/cli/, one folder deep like every module of dist/, so paths made from import.meta.url
// ('../frontier/redis/', '../../package.json') hold from a chunk too. Native addons stay packages.
// undici's HTTP/2 client is never used (it needs `allowH2`, which topicrawl does not set): a stub
// instead of it, so the crawl does not load node:http2 before its first request
const withoutH2: Plugin = {
  name: 'undici-without-h2',
  setup(b) {
    const client = join('undici', 'lib', 'dispatcher', 'client.js');
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
      args.importer.endsWith(client) ? { path: join(root, 'scripts', 'build-stubs', 'undici-client-h2.cjs') } : undefined);
  },
};
await build({
  plugins: [withoutH2],
  entryPoints: { 'cli/main': join(dist, 'cli', 'main.js'), 'crawl/page-worker': join(dist, 'crawl', 'page-worker.js') },
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outdir: dist,
  chunkNames: 'cli/chunk-[hash]',
  external: ['better-sqlite3', 'cld', '@node-rs/*'],
  banner: { js: "import { createRequire as __topicrawlBundleRequire } from 'node:module';\nconst require = __topicrawlBundleRequire(import.meta.url);" },
  sourcemap: false,
  logLevel: 'warning',
  allowOverwrite: true,
});
writeFileSync(join(dist, '.build.json'), `${JSON.stringify({ ...state, builtAt: new Date().toISOString() })}\n`);
process.stdout.write(`built dist/ from ${state.count} files of src/ (${copied} copied as they are)\n`);
