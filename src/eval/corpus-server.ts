import { open, realpath, stat, type FileHandle } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { checkPort, listenOn } from '../metrics/http-listen.js';
import { listCorpusHosts } from './corpus.js';

/**
 * A running corpus server: one loopback port answering every host of the corpus by the Host
 * header. `close()` stops listening and drops kept-alive connections; it resolves when done.
 */
export interface CorpusServer {
  port: number;
  /** The address it listens on (default 127.0.0.1). */
  address: string;
  /** The corpus hosts it answers (folder names under site/). */
  hosts: string[];
  close(): Promise<void>;
  /** host → "address:port" for every corpus host, for the crawler's resolve map. */
  resolveMap(): Record<string, string>;
}

/** One answered request, reported after the response is sent. */
export interface CorpusRequestRecord {
  host: string;
  path: string;
  status: number;
  /** When the response was finished (ms since epoch). */
  at: number;
  /** When the request arrived (ms since epoch). */
  receivedAt: number;
}

export interface CorpusServerOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Called after each response is sent (exceptions it throws are ignored). */
  onRequest?: (r: CorpusRequestRecord) => void;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.json': 'application/json',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.pdf': 'application/pdf',
};

/**
 * Content type served for a file name, from its extension. A file with no extension (`/~user`,
 * `/about`: common on real sites) is served as HTML when its first bytes look like HTML (`head`),
 * as servers configured for such paths do; anything else unknown is application/octet-stream.
 */
export function contentTypeFor(file: string, head?: Buffer): string {
  const ext = extname(file).toLowerCase();
  const known = CONTENT_TYPES[ext];
  if (known) return known;
  if (ext === '' && head && looksLikeHtml(head)) return CONTENT_TYPES['.html'];
  return 'application/octet-stream';
}

/** HTML markup near the start of a body (after blank space and comments): a doctype or a common opening tag. */
export function looksLikeHtml(head: Buffer): boolean {
  const text = head.subarray(0, 1024).toString('latin1').toLowerCase();
  return /<(!doctype html|html|head|title|body|h[1-6]|p|a\s|!--|meta|base|pre|center|table|ul|dl|img|hr|br)[\s>]/.test(text);
}

/** Files up to this size are read in one go; larger ones are streamed. */
const SMALL_FILE = 256 * 1024;

const HOST_HEADER_RE = /^([a-z0-9.-]+)(?::(\d{1,5}))?$/;

/**
 * Maps a request target to a path relative to the host folder, or null if it must be refused.
 * Refuses: non-origin-form targets, backslashes, NUL, encoded slashes, bad percent-encoding,
 * "." / ".." / empty segments (encoded or not).
 */
export function targetToRelativePath(target: string): string | null {
  if (!target.startsWith('/')) return null;
  const q = target.search(/[?#]/);
  const rawPath = q === -1 ? target : target.slice(0, q);
  if (/[\\\0]|%(2f|5c|00)/i.test(rawPath)) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return null;
  }
  if (/[\\\0]/.test(decoded)) return null;
  const segments = decoded.slice(1).split('/');
  const last = segments.length - 1;
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i];
    if (s === '.' || s === '..') return null;
    if (s === '' && i !== last) return null; // "//" inside the path
  }
  const rel = segments.join('/');
  return rel === '' || rel.endsWith('/') ? `${rel}index.html` : rel;
}

/** The first bytes of a file, read only when its name has no extension (see {@link contentTypeFor}). */
async function readHead(file: FileHandle, size: number): Promise<Buffer | undefined> {
  const buf = Buffer.alloc(Math.min(1024, size));
  if (buf.length === 0) return undefined;
  const { bytesRead } = await file.read(buf, 0, buf.length, 0);
  return buf.subarray(0, bytesRead);
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * Starts serving `<dir>/site/` on loopback. Throws E_CORPUS if the site folder is unusable, E_USAGE
 * for a port that is no port number (not an integer from 0 to 65535) or cannot be listened on (in use,
 * privileged), with a message naming the port.
 */
export async function startCorpusServer(dir: string, opts: CorpusServerOptions = {}): Promise<CorpusServer> {
  const wanted = opts.port ?? 0;
  checkPort(wanted, '--port');
  const hosts = listCorpusHosts(dir);
  const siteRoot = await realpath(resolve(dir, 'site'));
  const roots = new Map<string, string>();
  for (const h of hosts) roots.set(h, join(siteRoot, h) + sep);
  const onRequest = opts.onRequest;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const receivedAt = Date.now();
    const target = req.url ?? '';
    let hostName = '';
    const finish = (status: number, headers: Record<string, string> = {}, body = ''): void => {
      const text = body || `${status}\n`;
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), ...headers });
      res.end(req.method === 'HEAD' ? undefined : text);
    };
    if (onRequest) {
      res.once('finish', () => {
        try {
          onRequest({ host: hostName, path: target, status: res.statusCode, at: Date.now(), receivedAt });
        } catch {
          // a failing observer must not take the server down
        }
      });
    }
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    const m = HOST_HEADER_RE.exec(hostHeader);
    if (!m || m[1].startsWith('.') || m[1].endsWith('.') || m[1].includes('..')) return finish(400);
    hostName = m[1];
    if (req.method !== 'GET' && req.method !== 'HEAD') return finish(405, { allow: 'GET, HEAD' });
    const root = roots.get(hostName);
    if (root === undefined) return finish(404);
    const rel = targetToRelativePath(target);
    if (rel === null) return finish(400);
    const candidate = join(root, rel);
    if (!candidate.startsWith(root)) return finish(400);
    let real: string;
    let file: FileHandle;
    try {
      real = await realpath(candidate); // resolves symlinks: the result must stay inside the host folder
      if (!real.startsWith(root)) return finish(404);
      file = await open(real, 'r');
    } catch {
      return finish(404);
    }
    let closed = false;
    const closeFile = (): void => {
      if (!closed) {
        closed = true;
        file.close().catch(() => undefined);
      }
    };
    try {
      const st = await file.stat();
      if (!st.isFile()) {
        closeFile();
        // a folder named without its slash: redirect as web servers do, when it has an index page
        const q = target.search(/[?#]/);
        const path = q === -1 ? target : target.slice(0, q);
        if (st.isDirectory() && !path.endsWith('/') && (await isFile(join(real, 'index.html')))) {
          const location = `${path}/${q === -1 ? '' : target.slice(q).replace(/#.*$/, '')}`;
          return finish(301, { location });
        }
        return finish(404);
      }
      const size = st.size;
      const lastModified = st.mtime.toUTCString();
      const type = extname(real) === '' ? contentTypeFor(real, await readHead(file, size)) : contentTypeFor(real);
      const etag = `"${size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
      const inm = req.headers['if-none-match'];
      const ims = req.headers['if-modified-since'];
      const notModified =
        inm !== undefined ? inm.split(',').some((t) => t.trim() === etag) : ims !== undefined && Date.parse(ims) >= Math.floor(st.mtimeMs / 1000) * 1000;
      if (notModified || req.method === 'HEAD' || size === 0) {
        closeFile();
        if (notModified) res.writeHead(304, { 'last-modified': lastModified, etag });
        else res.writeHead(200, { 'content-type': type, 'content-length': String(size), 'last-modified': lastModified, etag });
        res.end();
        return;
      }
      const headers = { 'content-type': type, 'content-length': String(size), 'last-modified': lastModified, etag };
      if (size <= SMALL_FILE) {
        // small files (nearly all pages): one read, no stream machinery
        const buf = Buffer.allocUnsafe(size);
        let got = 0;
        while (got < size) {
          const { bytesRead } = await file.read(buf, got, size - got, got);
          if (bytesRead === 0) break;
          got += bytesRead;
        }
        closeFile();
        res.writeHead(200, headers);
        res.end(got === size ? buf : buf.subarray(0, got));
        return;
      }
      res.writeHead(200, headers);
      const stream = file.createReadStream({ highWaterMark: 64 * 1024 });
      stream.on('error', () => res.destroy());
      stream.on('close', () => {
        closed = true;
      });
      res.on('close', () => stream.destroy());
      stream.pipe(res);
    } catch (err) {
      closeFile();
      throw err;
    }
  };

  const server = createServer({ keepAlive: true }, (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('500\n');
      } else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.headersTimeout = 35_000;

  const addr = await listenOn(server, opts.host ?? '127.0.0.1', wanted, 'serve', '--port');
  const hostPort = addr.family === 'IPv6' ? `[${addr.address}]:${addr.port}` : `${addr.address}:${addr.port}`;
  let closing: Promise<void> | null = null;
  return {
    port: addr.port,
    address: addr.address,
    hosts: [...hosts],
    resolveMap: () => Object.fromEntries(hosts.map((h) => [h, hostPort])),
    close: () => {
      closing ??= new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
