import { createServer, type Server, type Socket } from 'node:net';

/** One response, written byte for byte: the head (status line and header lines) and the body parts. */
export interface RawResponse {
  head: string;
  /** Written one after the other (chunked framing included when the head says so). */
  parts: Buffer[];
}

export interface RawServer {
  port: number;
  /** Every request head received (request line and header lines, CRLF-terminated, without the blank line), by path. */
  requests: Map<string, string[]>;
  close(): Promise<void>;
}

/**
 * An HTTP/1.1 server on 127.0.0.1 (port 0) that writes its responses byte for byte, so a test knows
 * exactly what was on the wire: the reason phrase, the header names' case and order, repeated fields,
 * chunked framing, compressed bodies. `respond` is asked for each request (GET only, keep-alive).
 */
export async function startRawServer(respond: (path: string, headers: Map<string, string>) => RawResponse): Promise<RawServer> {
  const requests = new Map<string, string[]>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (let end = buf.indexOf('\r\n\r\n'); end >= 0; end = buf.indexOf('\r\n\r\n')) {
        const head = buf.subarray(0, end + 2).toString('latin1');
        buf = buf.subarray(end + 4);
        const [line, ...fields] = head.split('\r\n').filter((l) => l !== '');
        const path = line.split(' ')[1] ?? '/';
        const headers = new Map<string, string>();
        for (const f of fields) {
          const i = f.indexOf(':');
          headers.set(f.slice(0, i).trim().toLowerCase(), f.slice(i + 1).trim());
        }
        requests.set(path, [...(requests.get(path) ?? []), head]);
        const r = respond(path, headers);
        socket.write(Buffer.from(r.head, 'latin1'));
        for (const p of r.parts) socket.write(p);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A head with a Content-Length for `body`. */
export function head(status: string, fields: [string, string][]): string {
  return `HTTP/1.1 ${status}\r\n${fields.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
}

/** `body` as chunked transfer coding in chunks of `size`. */
export function chunked(body: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < body.length; i += size) {
    const c = body.subarray(i, i + size);
    out.push(Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]));
  }
  out.push(Buffer.from('0\r\n\r\n'));
  return out;
}
