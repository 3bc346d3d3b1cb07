/**
 * The bare crawl loop of the crawl benchmarks (issue 16): the least a crawler must do per page, to
 * measure the product against. undici `request()` to the corpus server (Host header = the page's
 * host), the body read in full, HTML (by Content-Type) parsed with parse5, `<a href>` links resolved
 * against the page URL (fragment dropped) and kept when their host is a corpus host, a 3xx's
 * Location taken as a link; a FIFO queue and a seen-set of URL strings. No store, no politeness, no
 * robots.txt, no scoring. Every answered request counts as a page (404s too, as the crawl counts
 * its fetches), up to `maxPages`.
 *
 * Connections: by default every host's requests share one pool of `inFlight` connections to the
 * server (the loopback server serves every host, so a request may ride any connection). A crawler
 * cannot do that on the web, where each host is a server of its own: with `perHostConnections`,
 * each host gets its own connection (a pool of one, kept alive 10 s, as the crawl's fetcher keeps
 * them), as the crawl opens them (2026-12-06: 16–23% fewer pages a second than the shared pool at
 * 20,000 pages of 1,000 hosts, and 33–41% more of the server's CPU a request).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'parse5';
import { Agent, Pool, request, type Dispatcher } from 'undici';

export interface BareLoopOptions {
  seeds: string[];
  /** Hosts to follow links to (the corpus hosts). */
  hosts: ReadonlySet<string>;
  /** Where every host is served (127.0.0.1). */
  port: number;
  inFlight: number;
  maxPages: number;
  /** One connection per host instead of one pool shared by all hosts (see the file header). */
  perHostConnections?: boolean;
}

export interface BareLoopResult {
  pages: number;
  seconds: number;
  pagesPerSec: number;
  /** Distinct URLs seen (queued or fetched). */
  seen: number;
  /**
   * CPU ms of this process (all its threads: V8's compiler and collector too) while the loop ran,
   * start-up left out: what the loop costs the machine, beside the crawl's CPU a page.
   */
  cpuMs: number;
}

interface Node {
  nodeName: string;
  attrs?: { name: string; value: string }[];
  childNodes?: Node[];
  content?: Node;
}

function linksOf(doc: Node, out: string[]): void {
  const stack: Node[] = [doc];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.nodeName === 'a' && n.attrs) {
      for (const a of n.attrs) if (a.name === 'href') out.push(a.value);
    }
    if (n.childNodes) for (let i = n.childNodes.length - 1; i >= 0; i--) stack.push(n.childNodes[i]);
    if (n.content) stack.push(n.content);
  }
}

export async function bareLoop(o: BareLoopOptions): Promise<BareLoopResult> {
  const agent = new Agent({ connections: o.inFlight, pipelining: 1 });
  const pools = new Map<string, Pool>();
  const origin = `http://127.0.0.1:${o.port}`;
  const get = (u: URL): Promise<Dispatcher.ResponseData> => {
    if (!o.perHostConnections) return request(`${origin}${u.pathname}${u.search}`, { dispatcher: agent, headers: { host: u.host } });
    let pool = pools.get(u.host);
    if (!pool) pools.set(u.host, (pool = new Pool(origin, { connections: 1, pipelining: 1, keepAliveTimeout: 10_000 })));
    return pool.request({ path: `${u.pathname}${u.search}`, method: 'GET', headers: { host: u.host } });
  };
  const queue: string[] = [];
  let head = 0;
  const seen = new Set<string>();
  const add = (href: string, base: URL | undefined): void => {
    let u: URL;
    try {
      u = new URL(href, base);
    } catch {
      return;
    }
    if (u.protocol !== 'http:' || !o.hosts.has(u.hostname)) return;
    u.hash = '';
    const s = u.href;
    if (!seen.has(s)) {
      seen.add(s);
      queue.push(s);
    }
  };
  for (const s of o.seeds) add(s, undefined);

  let started = 0;
  let pages = 0;
  let active = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await new Promise<void>((done, fail) => {
    const fetchOne = async (url: string): Promise<void> => {
      const u = new URL(url);
      const res = await get(u);
      const body = await res.body.text();
      pages++;
      const type = String(res.headers['content-type'] ?? '');
      if (res.statusCode >= 300 && res.statusCode < 400 && typeof res.headers.location === 'string') add(res.headers.location, u);
      else if (res.statusCode === 200 && type.startsWith('text/html')) {
        const hrefs: string[] = [];
        linksOf(parse(body) as unknown as Node, hrefs);
        for (const h of hrefs) add(h, u);
      }
    };
    const pump = (): void => {
      while (active < o.inFlight && head < queue.length && started < o.maxPages) {
        const url = queue[head++];
        started++;
        active++;
        fetchOne(url).then(() => {
          active--;
          pump();
        }, fail);
      }
      if (active === 0) done();
    };
    pump();
  });
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await agent.close();
  await Promise.all([...pools.values()].map((p) => p.close()));
  return { pages, seconds, pagesPerSec: pages / seconds, seen: seen.size, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/**
 * One bare loop in a fresh node process (this file run through tsx, the options as JSON), as cold as
 * a crawl's process: a loop run again in a warm process gets code V8 already optimised, which a
 * crawl of as few pages does not have (scripts/bench-scale.ts).
 */
export function coldBareLoop(o: BareLoopOptions): Promise<BareLoopResult> {
  const args = ['--import', 'tsx', fileURLToPath(import.meta.url), JSON.stringify({ ...o, hosts: [...o.hosts] })];
  return new Promise((ok, ko) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.on('error', ko);
    child.on('close', (code) => {
      if (code !== 0) return ko(new Error(`the bare loop's process exited ${code}`));
      try {
        ok(JSON.parse(out) as BareLoopResult);
      } catch {
        ko(new Error(`the bare loop's process printed no result: ${out.slice(0, 200)}`));
      }
    });
  });
}

// run directly (by coldBareLoop): the options as JSON in the first argument, the result on stdout
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const o = JSON.parse(process.argv[2] ?? '') as Omit<BareLoopOptions, 'hosts'> & { hosts: string[] };
  const r = await bareLoop({ ...o, hosts: new Set(o.hosts) });
  process.stdout.write(`${JSON.stringify(r)}\n`);
}
