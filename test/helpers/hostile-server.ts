import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGzip } from 'node:zlib';
import iconv from 'iconv-lite';

/**
 * A hostile web on loopback (issue 3 point 7): one node:http server on 127.0.0.1, port 0, that
 * answers several host names by the Host header, each misbehaving in its own way. `hub.test/`
 * links to one page of each kind plus a few normal pages, so one crawl from it meets them all.
 * Every endless stream stops when the client goes away ('close'), and `close()` ends whatever is
 * still open, so a test never leaks timers or sockets. robots.txt is 404 (allow all) everywhere.
 */
export interface HostileRequest {
  host: string;
  path: string;
  /** When the request arrived (ms since epoch). */
  at: number;
  /** The status sent, once the response is over; undefined when no status line was sent (a reset). */
  status?: number;
}

export interface HostileServer {
  port: number;
  hosts: string[];
  /** host → "127.0.0.1:port", for CrawlerOptions.resolve. */
  resolve: Record<string, string>;
  /** Every request, in arrival order. */
  log: HostileRequest[];
  /** Responses still streaming (drip, endless, 50 MB…): 0 once every client has gone away. */
  openStreams(): number;
  close(): Promise<void>;
}

/** Host names served. */
export const HOSTILE_HOSTS = [
  'hub.test', 'drip.test', 'endless.test', 'bomb.test', 'big.test', 'loop.test', 'binary.test', 'charset.test', 'limit.test', 'flap.test', 'reset.test', 'junk.test',
  'headers.test', 'links.test',
] as const;

/** The URLs `http://hub.test/` links to, by kind. */
export const HOSTILE_URLS = {
  drip: 'http://drip.test/',
  endless: 'http://endless.test/',
  bomb: 'http://bomb.test/',
  big: 'http://big.test/',
  bigDeclared: 'http://big.test/declared',
  loopA: 'http://loop.test/a',
  loopSelf: 'http://loop.test/self',
  chain: 'http://loop.test/chain/1',
  binary: 'http://binary.test/',
  charset: 'http://charset.test/',
  limit: 'http://limit.test/',
  flap: 'http://flap.test/',
  resetHeaders: 'http://reset.test/headers',
  resetBody: 'http://reset.test/body',
  junk: 'http://junk.test/',
  hugeHeaders: 'http://headers.test/',
  manyLinks: 'http://links.test/',
  normal1: 'http://hub.test/n1',
  normal2: 'http://hub.test/n2',
  normal3: 'http://hub.test/n3',
} as const;

/** Links found only inside the malformed page (junk.test/): a crawl that parses it follows them. */
export const JUNK_LINKS = ['http://junk.test/ok1', 'http://junk.test/ok2', 'http://junk.test/ok3'] as const;

/** The title of charset.test/, sent as GBK bytes under a "charset=utf-8" header. */
export const GBK_TITLE = '烟草专卖局发布卷烟市场新闻';

/** Sizes of what the hostile hosts send. */
export const HOSTILE_SIZES = {
  /** Decompressed size of the gzip bomb (zeros). */
  bomb: 1024 ** 3,
  /** The big page. */
  big: 50 * 1024 ** 2,
  /** The attribute in the malformed page. */
  junkAttribute: 2 * 1024 ** 2,
  /** Bytes of the one response header of headers.test/ (undici takes at most 16 KiB of headers). */
  hugeHeader: 60 * 1024,
  /** Links on links.test/, glued with no whitespace between them (`<a href="/p0">p0</a><a href="/p1">p1</a>…`). */
  manyLinks: 20_000,
  /** Interval of the drip (one byte each time) and of the endless body's chunks. */
  dripMs: 200,
  endlessMs: 100,
} as const;

const NORMAL = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>烟草 tobacco ${body}</p></body></html>`;

let bombPromise: Promise<Buffer> | null = null;

/**
 * A gzip bomb: 1 GiB of zeros in about 1 MB. Built once per process, lazily, with streaming zlib:
 * one gzip member of 8 MiB of zeros, repeated (a multi-member gzip stream, which gunzip reads as
 * one body), so building it takes a fraction of a second instead of compressing 1 GiB.
 */
export function gzipBomb(): Promise<Buffer> {
  bombPromise ??= new Promise<Buffer>((resolve, reject) => {
    const memberBytes = 8 * 1024 ** 2;
    const gz = createGzip({ level: 9 });
    const parts: Buffer[] = [];
    gz.on('data', (c: Buffer) => parts.push(c));
    gz.on('error', reject);
    gz.on('end', () => {
      const member = Buffer.concat(parts);
      resolve(Buffer.concat(new Array<Buffer>(HOSTILE_SIZES.bomb / memberBytes).fill(member)));
    });
    const zeros = Buffer.alloc(1024 ** 2);
    for (let i = 0; i < memberBytes / zeros.length; i++) gz.write(zeros);
    gz.end();
  });
  return bombPromise;
}

/** Deterministic pseudo-random bytes (a linear congruential generator), NULs included. */
function binaryBytes(n: number): Buffer {
  const b = Buffer.alloc(n);
  let x = 12345;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

/** Malformed HTML: unclosed tags, garbage bytes, NULs, a 2 MB attribute, links scattered through it. */
function junkPage(): Buffer {
  return Buffer.concat([
    Buffer.from('<html><head><title>junk page</title><body><b><div><p><table><tr><td><a href="/ok1">one<td><i><span '),
    Buffer.from([0, 0, 0xff, 0xfe, 0x80, 0x81, 0, 0x1b, 0x7f, 0xc3]),
    Buffer.from('"=<<>> <a href=/ok2 >two</b></i></span></table></p></div></div></div> <font><center><h3>'),
    // a 2 MB attribute on the tag of a link
    Buffer.from(`<a data-big="${'A'.repeat(HOSTILE_SIZES.junkAttribute)}" href="/ok3">three`),
    Buffer.from([0xfe, 0, 0xff]),
    Buffer.from('<script>if (a < b && c > d) { document.write("</scr" + "ipt>") }</script> <p><p><li><dd> <!-- never closed <a href="/nope">'),
  ]);
}

/** A page of links with no whitespace anywhere: its text is one "word" of 120,000 letters. */
function manyLinksPage(): string {
  const links = Array.from({ length: HOSTILE_SIZES.manyLinks }, (_, i) => `<a href="/p${i}">p${i}</a>`).join('');
  return `<!doctype html><html><head><title>links</title></head><body>${links}</body></html>`;
}

function charsetPage(): Buffer {
  const text = '国家烟草专卖局今日发布消息，卷烟市场运行平稳，各地烟草公司加强市场监管，打击假冒伪劣卷烟，维护消费者合法权益。';
  return iconv.encode(`<!doctype html><html><head><title>${GBK_TITLE}</title></head><body><h1>${GBK_TITLE}</h1><p>${text.repeat(4)}</p></body></html>`, 'gbk');
}

function hubPage(): string {
  const links = Object.entries(HOSTILE_URLS).map(([k, u]) => `<li><a href="${u}">${k}</a></li>`).join('\n');
  return NORMAL('hub 烟草', `<ul>${links}</ul>`);
}

type Handler = (req: IncomingMessage, res: ServerResponse, ctx: Ctx) => void;

interface Ctx {
  /** How many times this host+path was requested, this one included. */
  count: number;
  /** Registers a streaming response: `stop` runs when the client goes away or the server closes. */
  stream(res: ServerResponse, stop: () => void): void;
}

const html = { 'content-type': 'text/html; charset=utf-8' };

const BIG_PREFIX = '<!doctype html><html><head><title>big</title></head><body>';

/**
 * Writes `chunk` `times` times as fast as the client reads it (backpressure), then ends; stops when
 * the client goes away. Returns how many were written so far (a gzip bomb of repeated members: how
 * far the client read before it gave up).
 */
export function writeRepeated(res: ServerResponse, chunk: Buffer, times: number): () => number {
  let sent = 0;
  const pump = (): void => {
    while (sent < times && !res.destroyed) {
      sent++;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (sent >= times) res.end();
  };
  pump();
  return () => sent;
}

/** Writes `total` bytes of HTML as fast as the client reads them (backpressure), then ends. */
function streamBig(res: ServerResponse, ctx: Ctx, total: number): void {
  const chunk = Buffer.from(`<p>${'big page 烟草 '.repeat(4000)}</p>\n`);
  let sent = 0;
  let stopped = false;
  ctx.stream(res, () => (stopped = true));
  const pump = (): void => {
    while (!stopped && sent < total) {
      const part = total - sent >= chunk.length ? chunk : chunk.subarray(0, total - sent);
      sent += part.length;
      if (!res.write(part)) return void res.once('drain', pump);
    }
    if (!stopped) res.end();
  };
  res.write(BIG_PREFIX);
  pump();
}

/** Writes `piece()` every `ms` forever, until the client goes away. */
function streamForever(res: ServerResponse, ctx: Ctx, ms: number, piece: () => Buffer | string): void {
  const timer = setInterval(() => res.write(piece()), ms);
  ctx.stream(res, () => clearInterval(timer));
}

const routes: Record<string, Handler> = {
  'hub.test/': (_q, r) => r.writeHead(200, html).end(hubPage()),
  'hub.test/n1': (_q, r) => r.writeHead(200, html).end(NORMAL('normal one', '<a href="/">home</a> <a href="/n2">two</a>')),
  'hub.test/n2': (_q, r) => r.writeHead(200, html).end(NORMAL('normal two', '<a href="/n3">three</a>')),
  'hub.test/n3': (_q, r) => r.writeHead(200, html).end(NORMAL('normal three', '<a href="http://junk.test/">junk</a>')),
  // a byte every 200 ms, forever
  'drip.test/': (_q, r, c) => {
    r.writeHead(200, html).write('<html><body>');
    streamForever(r, c, HOSTILE_SIZES.dripMs, () => 'x');
  },
  // a body that never ends (1 KB every 100 ms: never over the size cap, never finished)
  'endless.test/': (_q, r, c) => {
    r.writeHead(200, html).write('<html><body>');
    streamForever(r, c, HOSTILE_SIZES.endlessMs, () => `<p>${'endless '.repeat(128)}</p>\n`);
  },
  'bomb.test/': (_q, r) => {
    void gzipBomb().then((b) => r.writeHead(200, { ...html, 'content-encoding': 'gzip', 'content-length': String(b.length) }).end(b));
  },
  'big.test/': (_q, r, c) => {
    r.writeHead(200, html);
    streamBig(r, c, HOSTILE_SIZES.big);
  },
  'big.test/declared': (_q, r, c) => {
    r.writeHead(200, { ...html, 'content-length': String(BIG_PREFIX.length + HOSTILE_SIZES.big) });
    streamBig(r, c, HOSTILE_SIZES.big);
  },
  'loop.test/a': (_q, r) => r.writeHead(302, { location: '/b' }).end(),
  'loop.test/b': (_q, r) => r.writeHead(302, { location: 'http://loop.test/a' }).end(),
  'loop.test/self': (_q, r) => r.writeHead(301, { location: '/self' }).end(),
  'binary.test/': (_q, r) => r.writeHead(200, { 'content-type': 'text/html' }).end(binaryBytes(256 * 1024)),
  'charset.test/': (_q, r) => r.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(charsetPage()),
  'limit.test/': (_q, r, c) => {
    if (c.count === 1) return void r.writeHead(429, { ...html, 'retry-after': '1' }).end('<p>slow down</p>');
    r.writeHead(200, html).end(NORMAL('limit ok', 'served after the Retry-After'));
  },
  // 503 twice, then 200
  'flap.test/': (_q, r, c) => {
    if (c.count <= 2) return void r.writeHead(503, html).end('<p>busy</p>');
    r.writeHead(200, html).end(NORMAL('flap ok', `served on attempt ${c.count}`));
  },
  // the connection dies in the middle of the status line's headers
  'reset.test/headers': (q) => {
    q.socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/ht');
    q.socket.destroy();
  },
  // headers and half the promised body, then the connection dies
  'reset.test/body': (_q, r) => {
    r.writeHead(200, { ...html, 'content-length': '20000' });
    r.write(`<html><body>${'half '.repeat(2000)}`, () => r.socket?.destroy());
  },
  'junk.test/': (_q, r) => r.writeHead(200, html).end(junkPage()),
  // a 60 KB response header, written raw (node:http would refuse to send it)
  'headers.test/': (q) => {
    q.socket.end(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Big: ${'a'.repeat(HOSTILE_SIZES.hugeHeader)}\r\nContent-Length: 2\r\n\r\nok`);
  },
  'links.test/': (_q, r) => r.writeHead(200, html).end(manyLinksPage()),
  'junk.test/ok1': (_q, r) => r.writeHead(200, html).end(NORMAL('ok one', '')),
  'junk.test/ok2': (_q, r) => r.writeHead(200, html).end(NORMAL('ok two', '')),
  'junk.test/ok3': (_q, r) => r.writeHead(200, html).end(NORMAL('ok three', '')),
};

for (let i = 1; i <= 20; i++) {
  // an endless redirect chain: /chain/1 → /chain/2 → …
  routes[`loop.test/chain/${i}`] = (_q, r) => r.writeHead(302, { location: `/chain/${i + 1}` }).end();
}

/** Starts the hostile server (and builds the gzip bomb first, so its first request is not slow). */
export async function startHostileServer(): Promise<HostileServer> {
  await gzipBomb();
  const log: HostileRequest[] = [];
  const counts = new Map<string, number>();
  const streams = new Set<() => void>();
  const server = createServer((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0].toLowerCase();
    const path = req.url ?? '/';
    const entry: HostileRequest = { host, path, at: Date.now() };
    log.push(entry);
    res.on('close', () => {
      if (res.headersSent) entry.status = res.statusCode;
    });
    const key = `${host}${path}`;
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    const handler = routes[key];
    if (!handler) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    const ctx: Ctx = {
      count,
      stream(r, stop) {
        let done = false;
        const end = (): void => {
          if (done) return;
          done = true;
          streams.delete(end);
          stop();
        };
        streams.add(end);
        r.on('close', end);
      },
    };
    handler(req, res, ctx);
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    hosts: [...HOSTILE_HOSTS],
    resolve: Object.fromEntries(HOSTILE_HOSTS.map((h) => [h, `127.0.0.1:${port}`])),
    log,
    openStreams: () => streams.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const end of [...streams]) end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
