/**
 * The corpus server of the crawl benchmarks (scripts/bench-crawl.ts, bench-peers.ts): a process of
 * its own, so that serving is not the bottleneck and does not share the crawler's CPU accounting.
 *
 * - nginx (Debian's /usr/sbin/nginx) when it is installed: a generated configuration in a temporary
 *   folder, one worker process, listening on 127.0.0.1 at a free port (nginx cannot take port 0, so
 *   a port is picked by binding 0 and closing it first). Every corpus host is served from
 *   `<corpus>/site/<Host header>/` (an unknown host: 404), as `topicrawl serve` does: `/` and `/dir/`
 *   give `index.html`, a folder named without its slash a 301 to `/dir/` (a relative Location, as
 *   serve's) when it has an index.html, a missing file (or folder without index.html) 404, `.html` as
 *   `text/html; charset=utf-8`, `.txt` as text/plain, ETag and Last-Modified. A difference that does
 *   not arise on the generated corpora: a file without an extension is application/octet-stream
 *   (serve sniffs HTML). Requests are logged with their end time and duration (`$msec $request_time`).
 * - otherwise the corpus server (src/eval/corpus-server.ts, what `topicrawl serve` runs) in a child
 *   process started through tsx, which counts requests and keeps the first arrival and last answer.
 *
 * `window()` gives the requests answered since the previous call (or the start): their count, the
 * arrival of the first and the end of the last, in ms since the epoch. `cpuMs()` the server's CPU so
 * far (Linux), for what a request costs the 2 cores the crawl shares with it. Run directly (`--child DIR`)
 * this file is that child.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, closeSync, fstatSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processTreeCpuMs } from './proc-cpu.js';

export const NGINX = '/usr/sbin/nginx';

/** Requests answered in a window: how many, the first one's arrival and the last one's end (epoch ms). */
export interface RequestWindow {
  count: number;
  first: number;
  last: number;
}

export interface BenchServer {
  kind: 'nginx' | 'corpus-server';
  /** What serves, for the report: "nginx 1.22.1 (1 worker)" or "topicrawl corpus server (child process)". */
  label: string;
  port: number;
  window(): Promise<RequestWindow>;
  /**
   * CPU ms the serving process(es) used so far (nginx's master and worker; the corpus server's
   * process), from /proc: the difference between two calls is what the requests in between cost
   * the machine. Null where /proc is not there.
   */
  cpuMs(): number | null;
  stop(): Promise<void>;
}

/** A port free on 127.0.0.1 a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

function nginxConfig(site: string, dir: string, port: number): string {
  return `
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  types { text/html html htm; text/plain txt; application/xml xml; application/json json; text/css css; text/javascript js; image/png png; image/jpeg jpg jpeg; image/gif gif; application/pdf pdf; }
  default_type application/octet-stream;
  charset utf-8;
  charset_types text/html text/plain text/css text/javascript;
  log_format bench '$msec $request_time $status';
  access_log ${dir}/access.log bench;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  sendfile on;
  tcp_nodelay on;
  keepalive_timeout 30s;
  keepalive_requests 1000000;
  absolute_redirect off;
  server_tokens off;
  server {
    listen 127.0.0.1:${port} default_server;
    server_name _;
    root ${site}/$host;
    location / { try_files $uri @folder; }
    location ~ /$ { try_files \${uri}index.html =404; }
    location @folder {
      if (-f $request_filename/index.html) { return 301 $uri/$is_args$args; }
      return 404;
    }
  }
}
`;
}

async function startNginx(corpus: string): Promise<BenchServer> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-nginx-'));
  mkdirSync(join(dir, 'tmp'));
  const site = resolve(corpus, 'site');
  const version = /nginx\/([\d.]+)/.exec(await new Promise<string>((ok) => {
    const v = spawn(NGINX, ['-v'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let s = '';
    v.stderr.on('data', (d) => (s += d));
    v.on('close', () => ok(s));
  }))?.[1] ?? '?';
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    writeFileSync(join(dir, 'nginx.conf'), nginxConfig(site, dir, port));
    const child = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((ok) => child.once('exit', (c) => ok(c)));
    // ready once it answers; an exit first is a failure (the port taken in the meantime: try another)
    const ready = await Promise.race([exited.then(() => false), waitForPort(port).then(() => true)]);
    if (!ready) {
      if (attempt < 3 && /in use/.test(err + readIfExists(join(dir, 'error.log')))) continue;
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`nginx did not start: ${(err + readIfExists(join(dir, 'error.log'))).trim().split('\n').pop()}`);
    }
    const log = join(dir, 'access.log');
    let offset = 0;
    // this process ending by an error or Ctrl-C (the benches exit on SIGINT) takes nginx with it
    const onExit = (): void => {
      child.kill('SIGQUIT');
      rmSync(dir, { recursive: true, force: true });
    };
    process.once('exit', onExit);
    return {
      kind: 'nginx',
      label: `nginx ${version} (1 worker process)`,
      port,
      cpuMs: () => (child.pid === undefined ? null : processTreeCpuMs(child.pid)),
      async window() {
        // lines are written at each request's end (no buffer): everything answered is in the file
        const fd = openSync(log, 'r');
        const size = fstatSync(fd).size;
        const buf = Buffer.alloc(size - offset);
        readSync(fd, buf, 0, buf.length, offset);
        closeSync(fd);
        const text = buf.toString('latin1');
        const end = text.lastIndexOf('\n') + 1;
        offset += end;
        const w: RequestWindow = { count: 0, first: Infinity, last: -Infinity };
        for (const line of text.slice(0, end).split('\n')) {
          if (!line) continue;
          const [msec, rt] = line.split(' ');
          const at = Number(msec) * 1000;
          w.count++;
          w.first = Math.min(w.first, at - Number(rt) * 1000);
          w.last = Math.max(w.last, at);
        }
        return w;
      },
      async stop() {
        process.off('exit', onExit);
        child.kill('SIGQUIT');
        await exited;
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
}

function readIfExists(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

async function waitForPort(port: number): Promise<void> {
  const { connect } = await import('node:net');
  for (;;) {
    const ok = await new Promise<boolean>((res) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), res(true)));
      s.once('error', () => res(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function startCorpusServerChild(corpus: string): Promise<BenchServer> {
  const self = fileURLToPath(import.meta.url);
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', self, '--child', corpus], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    cwd: fileURLToPath(new URL('../', import.meta.url)),
  });
  const ask = <T>(msg: string): Promise<T> =>
    new Promise((ok, fail) => {
      const onExit = (c: number | null) => fail(new Error(`the corpus server exited (${c})`));
      child.once('exit', onExit);
      child.once('message', (m) => (child.off('exit', onExit), ok(m as T)));
      if (msg) child.send(msg);
    });
  const { port } = await ask<{ port: number }>('');
  const killOnExit = (): void => void child.kill('SIGTERM');
  process.once('exit', killOnExit);
  return {
    kind: 'corpus-server',
    label: 'topicrawl corpus server (src/eval/corpus-server.ts, its own process)',
    port,
    window: () => ask<RequestWindow>('window'),
    cpuMs: () => (child.pid === undefined ? null : processTreeCpuMs(child.pid)),
    async stop() {
      process.off('exit', killOnExit);
      const exited = new Promise((ok) => child.once('exit', ok));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** nginx if installed (and not refused with BENCH_SERVER=corpus), else the corpus server; both in a process of their own. */
export async function startBenchServer(corpus: string): Promise<BenchServer> {
  if (existsSync(NGINX) && process.env.BENCH_SERVER !== 'corpus') return startNginx(corpus);
  return startCorpusServerChild(corpus);
}

if (process.argv[2] === '--child') {
  const { startCorpusServer } = await import('../src/eval/corpus-server.js');
  let w: RequestWindow = { count: 0, first: Infinity, last: -Infinity };
  const server = await startCorpusServer(process.argv[3], {
    onRequest: (r) => {
      w.count++;
      if (r.receivedAt < w.first) w.first = r.receivedAt;
      if (r.at > w.last) w.last = r.at;
    },
  });
  process.on('message', (m) => {
    if (m === 'window') {
      process.send!(w);
      w = { count: 0, first: Infinity, last: -Infinity };
    }
  });
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
  process.send!({ port: server.port });
}
