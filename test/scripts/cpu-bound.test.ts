import { describe, expect, it } from 'vitest';
import { cpuBound, type CpuBoundInput } from '../../scripts/cpu-bound.js';

// 2 cores; the crawl: 1,000 pages in 1,010 requests (10 redirects), 1.6 s of CPU, the server 0.303 s
// for them; the bare loop: 0.4 ms a page, the server 0.5 s for 2,000 requests
const input: CpuBoundInput = {
  cores: 2, crawlPages: 1000, crawlRate: 900, crawlCpuMs: 1600, crawlServed: 1010,
  bareRate: 2500, bareCpuMsPerPage: 0.4, bareServed: 2000, serverCrawlMs: 303, serverBareMs: 500,
};

describe('cpuBound', () => {
  it("adds the server's CPU for a page's requests to the crawl's, and bounds pages/s by the cores", () => {
    const b = cpuBound(input)!;
    expect(b.server_cpu_ms_per_request).toBeCloseTo(0.3, 3); // 303 ms / 1,010 requests
    expect(b.bare_loop_server_cpu_ms_per_request).toBeCloseTo(0.25, 3);
    expect(b.machine_cpu_ms_per_page).toBeCloseTo(1.6 + 0.303, 2); // 1.01 requests a page at 0.3 ms
    expect(b.bare_loop_machine_cpu_ms_per_page).toBeCloseTo(0.65, 2);
    expect(b.pages_per_s_at_bound).toBe(Math.round(2000 / 1.903));
    expect(b.share_of_bound).toBeCloseTo(900 / (2000 / 1.903), 2);
    expect(b.bare_loop_pages_per_s_at_bound).toBe(Math.round(2000 / 0.65));
    expect(b.bare_loop_share_of_bound).toBeCloseTo(2500 / (2000 / 0.65), 2);
    // the ratio the crawl could reach at its CPU a page against the bare loop's 2,500 pages/s
    expect(b.ratio_at_bound).toBeCloseTo(2000 / 1.903 / 2500, 2);
    // 0.60 of 2,500 = 1,500 pages/s: 2,000 / 1,500 = 1.333 ms a page, the server's 0.303 of it
    expect(b.cpu_ms_per_page_for['0.6']).toBeCloseTo(1.333 - 0.303, 2);
  });

  it('a faster crawl has a higher bound, and a ratio no CPU a page can give asks for 0 ms', () => {
    const faster = cpuBound({ ...input, crawlCpuMs: 800 })!;
    expect(faster.pages_per_s_at_bound).toBeGreaterThan(cpuBound(input)!.pages_per_s_at_bound);
    const busyServer = cpuBound({ ...input, serverCrawlMs: 3000 })!; // 2.97 ms a page for the server alone
    expect(busyServer.cpu_ms_per_page_for['0.6']).toBe(0);
  });

  it("is null when the server's CPU is not known or a side did nothing", () => {
    expect(cpuBound({ ...input, serverCrawlMs: null })).toBeNull();
    expect(cpuBound({ ...input, serverBareMs: null })).toBeNull();
    expect(cpuBound({ ...input, crawlPages: 0 })).toBeNull();
    expect(cpuBound({ ...input, bareServed: 0 })).toBeNull();
  });
});
