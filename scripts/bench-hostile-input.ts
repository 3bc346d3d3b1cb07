/**
 * How long hostile inputs hold the crawler, each against a benign input of the same useful size in
 * the same run (tests check what the defences keep and drop; how fast they act is measured here):
 *
 * - a sitemap gzip bomb (~1 MB → 1 GiB) parsed with a 1 MiB cap vs a plain 1 MiB sitemap;
 * - "billion laughs" (nested entities, ~3 GB if expanded) vs the same sitemap without the DTD;
 * - a gzip bomb fetched over loopback (10 GiB decoded, ~10 MB on the wire) with a 100 KB page cap
 *   vs fetching a plain 100 KB body.
 *
 *   npx tsx scripts/bench-hostile-input.ts
 *
 * These were test assertions (bomb < 5 s, billion laughs < 1 s, fetch bomb < 3 s); a loaded machine
 * can fail any absolute bound, so the figures are printed here with their ratios.
 */
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { UndiciFetcher } from '../src/fetch/undici-fetcher.js';
import { parseSitemap } from '../src/fetch/sitemap-parse.js';
import { writeRepeated } from '../test/helpers/hostile-server.js';

const SM = 'http://www.example.com/sitemap.xml';
const url = (loc: string) => `<url><loc>${loc}</loc></url>`;
const urlset = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${body}</urlset>`;

/** Mean milliseconds of fn over `runs` runs (after one warm-up run). */
async function ms(runs: number, fn: () => unknown): Promise<number> {
  await fn();
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) await fn();
  return (performance.now() - t0) / runs;
}
const line = (name: string, hostile: number, benign: number, what: string) =>
  console.log(`${name.padEnd(16)} ${hostile.toFixed(1)} ms; ${what} ${benign.toFixed(1)} ms; ratio ${(hostile / benign).toFixed(2)}`);

console.log('npx tsx scripts/bench-hostile-input.ts');

// ---- sitemap gzip bomb ----
{
  const head = gzipSync(`<urlset>${url('http://www.example.com/1')}${url('http://www.example.com/2')}`);
  const pad = gzipSync(Buffer.alloc(8 << 20, ' '));
  const bomb = Buffer.concat([head, ...Array<Buffer>(128).fill(pad)]);
  const entries: string[] = [];
  for (let i = 0; entries.join('').length < 1 << 20; i++) entries.push(url(`http://www.example.com/page/${i}`));
  const plain = gzipSync(urlset(entries.join('')));
  line('sitemap bomb', await ms(5, () => parseSitemap(bomb, SM, { maxBytes: 1 << 20 })), await ms(5, () => parseSitemap(plain, SM, { maxBytes: 2 << 20 })), 'plain 1 MiB gzipped sitemap');
}

// ---- billion laughs ----
{
  const decls = ['<!ENTITY lol0 "lol">'];
  for (let i = 1; i <= 9; i++) decls.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
  const body = url('http://www.example.com/&lol9;') + url('http://www.example.com/ok');
  const laughs = Buffer.from(`<?xml version="1.0"?>\n<!DOCTYPE urlset [\n${decls.join('\n')}\n]>\n<urlset>${body}</urlset>`);
  const plain = Buffer.from(urlset(url('http://www.example.com/x') + url('http://www.example.com/ok')));
  line('billion laughs', await ms(50, () => parseSitemap(laughs, SM)), await ms(50, () => parseSitemap(plain, SM)), 'the same sitemap without its DTD');
}

// ---- a gzip bomb over the wire ----
{
  const member = gzipSync(Buffer.alloc(16 << 20));
  const members = 640;
  const plain = Buffer.alloc(100_000, 'x');
  const server = createServer((req, res) => {
    if (req.url !== '/bomb') return void res.writeHead(200, { 'content-type': 'text/html' }).end(plain);
    res.writeHead(200, { 'Content-Encoding': 'gzip', 'content-type': 'text/html' });
    writeRepeated(res, member, members);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as import('node:net').AddressInfo).port;
  const fetcher = new UndiciFetcher({
    userAgent: 'topicrawl-bench', connectTimeoutMs: 5000, headersTimeoutMs: 5000, bodyTimeoutMs: 60_000,
    maxPageBytes: 100_000, resolve: { 'bomb.example': `127.0.0.1:${port}` },
  });
  try {
    const bomb = await ms(3, async () => {
      const r = await fetcher.fetch('http://bomb.example/bomb');
      if (r.error?.code !== 'E_TOO_LARGE') throw new Error(`expected E_TOO_LARGE, got ${r.error?.code}`);
    });
    const benign = await ms(20, () => fetcher.fetch('http://bomb.example/plain', { maxBytes: 200_000 }));
    line('fetch gzip bomb', bomb, benign, 'a plain 100 KB body');
  } finally {
    await fetcher.close();
    await new Promise((r) => server.close(r));
  }
}
