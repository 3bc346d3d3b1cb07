/**
 * How near the machine's CPU a crawl runs (bench-crawl.ts's `cpu_bound`). On a machine the crawl
 * shares with its server, a page costs the crawl's CPU a page plus the server's CPU for its
 * requests; at C cores no crawl can go faster than C seconds of CPU a second allow:
 *
 *   bound (pages/s) = C × 1000 / (crawl CPU ms a page + server CPU ms a request × requests a page)
 *
 * The same for the bare loop. So `ratio_at_bound` (the crawl's bound ÷ the bare loop's pages/s) is
 * the most the crawl ÷ bare-loop ratio can reach at the crawl's CPU a page, however well its threads
 * overlap, while the bare loop stays as fast as it was (a single-threaded loop that need not use
 * every core); and `cpu_ms_per_page_for` the crawl's CPU a page at which a ratio becomes possible.
 * The crawl's CPU is its whole process's, start-up included (~1% of it at 20,000 pages, ~5% at
 * 1,000), against its pages/s from its first request to its last: the bound errs low by that much.
 */

export interface CpuBoundInput {
  cores: number;
  crawlPages: number;
  crawlRate: number;
  /** the crawl process's CPU, ms */
  crawlCpuMs: number;
  /** requests the server answered during the crawl */
  crawlServed: number;
  bareRate: number;
  bareCpuMsPerPage: number;
  /** requests the server answered during the bare loops */
  bareServed: number;
  /** the server's CPU during the crawl and during the bare loops, ms (null: not known) */
  serverCrawlMs: number | null;
  serverBareMs: number | null;
}

export interface CpuBound {
  cores: number;
  server_cpu_ms_per_request: number;
  bare_loop_server_cpu_ms_per_request: number;
  /** the crawl's CPU a page and its server's for its requests */
  machine_cpu_ms_per_page: number;
  bare_loop_machine_cpu_ms_per_page: number;
  pages_per_s_at_bound: number;
  share_of_bound: number;
  bare_loop_pages_per_s_at_bound: number;
  bare_loop_share_of_bound: number;
  ratio_at_bound: number;
  /** the crawl's own CPU ms a page that would let it reach these ratios of the bare loop (0: none would) */
  cpu_ms_per_page_for: Record<string, number>;
}

const r2 = (x: number): number => +x.toFixed(2);
const r3 = (x: number): number => +x.toFixed(3);

/** The figures of {@link CpuBound}; null when the server's CPU is not known (no /proc). */
export function cpuBound(i: CpuBoundInput): CpuBound | null {
  if (i.serverCrawlMs === null || i.serverBareMs === null || i.crawlPages === 0 || i.crawlServed === 0 || i.bareServed === 0) return null;
  const serverMs = i.serverCrawlMs / i.crawlServed;
  const bareServerMs = i.serverBareMs / i.bareServed;
  // requests a page: the crawl's redirects and errors are requests too; the bare loop's as many as its pages
  const crawlServerPerPage = serverMs * (i.crawlServed / i.crawlPages);
  const machine = i.crawlCpuMs / i.crawlPages + crawlServerPerPage;
  const bareMachine = i.bareCpuMsPerPage + bareServerMs;
  const bound = (i.cores * 1000) / machine;
  const bareBound = (i.cores * 1000) / bareMachine;
  const forRatio = (ratio: number): number => Math.max(0, r2((i.cores * 1000) / (ratio * i.bareRate) - crawlServerPerPage));
  return {
    cores: i.cores,
    server_cpu_ms_per_request: r3(serverMs),
    bare_loop_server_cpu_ms_per_request: r3(bareServerMs),
    machine_cpu_ms_per_page: r2(machine),
    bare_loop_machine_cpu_ms_per_page: r2(bareMachine),
    pages_per_s_at_bound: Math.round(bound),
    share_of_bound: r2(i.crawlRate / bound),
    bare_loop_pages_per_s_at_bound: Math.round(bareBound),
    bare_loop_share_of_bound: r2(i.bareRate / bareBound),
    ratio_at_bound: r2(bound / i.bareRate),
    cpu_ms_per_page_for: { '0.6': forRatio(0.6) },
  };
}
