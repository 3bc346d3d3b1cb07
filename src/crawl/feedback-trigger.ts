import { toOutcome } from '../errors.js';
import type { CrawlEvents, PageEvent, TypedEmitter } from '../events.js';
import { scoredPageCount } from '../store/feedback-pages.js';
import type { CrawlFileStore } from '../store/crawl-file-store.js';
import type { Config } from '../topic/config.js';
import type { AnalyzerPool } from './analyzer-pool.js';
import { FEEDBACK_META_KEY, parseFeedback, withFeedbackKeywords, type FeedbackRecord } from './relevance-feedback.js';

/**
 * When relevance feedback (`relevance.feedback`) chooses its terms in a crawl, and from then on
 * which keywords the page analysis uses.
 *
 * - Opening a crawl file that holds terms already (a resumed crawl): every page of this run is
 *   scored with them; they are never chosen again.
 * - Otherwise, once the crawl file counts `after` scored pages (parsed HTML, no duplicate), the
 *   terms are chosen from the first `after` of them in fetch order (inside the crawl's serial part,
 *   so no page is recorded meanwhile), stored in the crawl file (meta `relevance_feedback`) and sent
 *   to the analysis threads. A page whose analysis starts after that is scored with them; the pages
 *   already under analysis then (at most `politeness.concurrency`) keep the score of the topic's own
 *   keywords. As the terms depend only on the first `after` scored pages of the file, a crawl stopped
 *   before that point and resumed chooses them from the same pages as one that ran on.
 */
export class FeedbackTrigger {
  private record: FeedbackRecord | null;
  private scored: number;
  private busy = false;

  /** `events`: hears `feedback` when the terms are chosen, `warn` (W_FEEDBACK) when they could not be. */
  constructor(
    private readonly cfg: Config, private readonly store: CrawlFileStore, private readonly pool: AnalyzerPool,
    private readonly events: Pick<TypedEmitter<CrawlEvents>, 'emit'>,
  ) {
    // terms chosen by an earlier run apply while the topic asks for feedback (turned off: the plain keywords)
    this.record = cfg.relevance.feedback ? parseFeedback(store.file.getMeta(FEEDBACK_META_KEY)) : null;
    if (this.record) pool.setKeywords(withFeedbackKeywords(cfg.keywords, this.record));
    this.scored = this.record || !cfg.relevance.feedback ? 0 : scoredPageCount(store.file.db);
  }

  /** The terms in force (null: none chosen yet, or feedback is off). */
  get current(): FeedbackRecord | null {
    return this.record;
  }

  /**
   * Hears of a recorded page; when this page completes the `after` pages, chooses the terms (`serial`
   * runs that between two pages' records) and emits `feedback`. A failure (the crawl file could not
   * be read or written) is a warning, and the terms are not tried again in this run.
   */
  async heard(ev: PageEvent, serial: <T>(fn: () => Promise<T>) => Promise<T>): Promise<void> {
    const fb = this.cfg.relevance.feedback;
    if (!fb || this.record || ev.relevance === null || ev.duplicateOf) return;
    if (++this.scored < fb.after || this.busy) return;
    this.busy = true;
    let rec: FeedbackRecord | null;
    try {
      rec = await serial(async () => {
        const { chooseFeedback } = await import('./feedback-choose.js');
        this.store.file.flushPageRows(); // (the pages' stored bodies are read)
        const r = chooseFeedback(this.store.file.db, this.cfg, this.store.file.counters().fetched);
        if (r) await this.store.setMeta({ [FEEDBACK_META_KEY]: JSON.stringify(r) });
        return r;
      });
    } catch (err) {
      this.events.emit('warn', { code: 'W_FEEDBACK', message: `relevance feedback chose no terms: ${toOutcome(err).message}` });
      return;
    }
    this.busy = false;
    if (!rec) return;
    this.record = rec;
    this.pool.setKeywords(withFeedbackKeywords(this.cfg.keywords, rec));
    this.events.emit('feedback', rec);
  }
}
