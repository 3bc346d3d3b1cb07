import { toOutcome } from '../errors.js';
import type { Lease } from '../frontier/frontier.js';
import { UrlState } from '../frontier/url-state.js';
import { recordedUrl, strategyHears, type ProcessorDeps } from './page-processor.js';

/**
 * An unexpected error on one page made its recorded outcome (state FAILED, the error's code and
 * message), in the crawl's serial order (`deps.serial`); the strategy hears of it as of every page
 * with a fetch_seq, as the resume replay (fetchHistory) does. Returns the outcome and the page's
 * fetch_seq (0 when the store gave none).
 */
export async function recordFailedPage(deps: ProcessorDeps, item: Lease, err: unknown): Promise<{ outcome: ReturnType<typeof toOutcome>; seq: number }> {
  const outcome = toOutcome(err);
  const seq = await deps.serial(async () => {
    const fetchSeq = await deps.store.recordPage({
      url: recordedUrl(item), state: UrlState.FAILED, status: 0, error: outcome.code, relevance: null, relevant: null, contentHash: null,
      fetchedAt: Date.now(), note: outcome.message.slice(0, 500), response: null, links: [], hostCounts: null,
    });
    const page = { id: item.id, url: item.url, depth: item.depth, life: item.life, priority: item.priority, relevance: null, relevant: false };
    await strategyHears(deps, page, [], []);
    return fetchSeq ?? 0;
  });
  return { outcome, seq };
}
