/**
 * The build's training crawl (scripts/build.ts): runs the compiled CLI once on a small loopback site,
 * with TOPICRAWL_CODE_CACHE=write, so that each bundle (the CLI, the page-analysis thread) saves at
 * exit the V8 code cache of every function the crawl compiled (bin/load-bundle.cjs). Later starts
 * deserialise those instead of compiling them. Robots on, a few linked pages with the topic's words,
 * one of them a redirect: the code a real crawl runs before and around its first requests.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

const PAGES = 6;

function page(i: number): string {
  const links = Array.from({ length: PAGES }, (_, j) => `<a href="/p${j}">telescope ${j}</a>`).join(' ');
  return `<!doctype html><html><head><title>Telescope page ${i}</title></head><body><h1>Telescopes and astronomy</h1>
<p>A refracting telescope gathers light for astronomy; observers compare mirrors, lenses and mounts.</p>
<p>${links} <a href="/moved">old page</a></p></body></html>`;
}

/**
 * Runs the training crawl on dist/ (already built, its .build.json written) and returns the cache
 * files it saved. Throws if the crawl fails or a bundle saved no cache.
 */
export async function trainCodeCache(root: string, buildId: string, bundles: string[]): Promise<{ pages: number; files: string[] }> {
  const { cachePath } = createRequire(import.meta.url)('../bin/load-bundle.cjs') as { cachePath: (b: string, id: string) => string };
  const srv = createServer((q, r) => {
    if (q.url === '/robots.txt') return r.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n');
    if (q.url === '/moved') return r.writeHead(301, { location: '/p1' }).end();
    const i = Number(/^\/p(\d+)$/.exec(q.url ?? '')?.[1] ?? 0);
    r.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(i));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(join(tmpdir(), 'topicrawl-training-'));
  try {
    const topic = join(dir, 'training.yaml');
    writeFileSync(topic, `name: training\nseeds: ['http://training.test/']\nkeywords: {telescope: 2, astronomy: 1}\nlimits: {max_pages: ${PAGES}}\npoliteness: {delay_ms: 0}\n`);
    const port = (srv.address() as AddressInfo).port;
    const child = spawn(process.execPath, [join(root, 'bin', 'topicrawl.js'), 'crawl', topic, '--db', join(dir, 'training.db'), '--resolve', `training.test=127.0.0.1:${port}`, '--mapped-only'], {
      env: { ...process.env, TOPICRAWL_CODE_CACHE: 'write', TOPICRAWL_FROM_SOURCE: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    const files = bundles.map((b) => cachePath(b, buildId));
    const missing = files.filter((f) => !existsSync(f));
    const failure = code !== 0 ? `the training crawl exited ${code}: ${err.trim().split('\n')[0]}`
      : missing.length ? `the training crawl saved no cache for ${missing.map((f) => basename(f)).join(', ')}` : null;
    if (failure) {
      // no cache at all rather than one of a run that went wrong
      for (const f of files) rmSync(f, { force: true });
      throw new Error(failure);
    }
    return { pages: PAGES, files: files.map((f) => basename(f)) };
  } finally {
    srv.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
