import type { PageEvent } from '../events.js';
import { scoredPageCount } from '../store/feedback-pages.js';
import type { CrawlFileStore } from '../store/crawl-file-store.js';
import type { Config } from '../topic/config.js';
import type { AnalyzerPool } from './analyzer-pool.js';
import { chooseFeedback, FEEDBACK_META_KEY, parseFeedback, withFeedbackKeywords, type FeedbackRecord } from './relevance-feedback.js';

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

  constructor(private readonly cfg: Config, private readonly store: CrawlFileStore, private readonly pool: AnalyzerPool) {
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
   * Hears of a recorded page; returns the record when this page completed the `after` pages and the
   * terms were chosen now. `serial` runs the choice between two pages' records. After a failure
   * (thrown: the crawl file could not be read or written) it does not try again in this run.
   */
  async heard(ev: PageEvent, serial: <T>(fn: () => Promise<T>) => Promise<T>): Promise<FeedbackRecord | null> {
    const fb = this.cfg.relevance.feedback;
    if (!fb || this.record || ev.relevance === null || ev.duplicateOf) return null;
    if (++this.scored < fb.after || this.busy) return null;
    this.busy = true;
    const rec = await serial(async () => {
      const r = chooseFeedback(this.store.file.db, this.cfg, this.store.file.counters().fetched);
      if (r) await this.store.setMeta({ [FEEDBACK_META_KEY]: JSON.stringify(r) });
      return r;
    });
    this.busy = false;
    if (!rec) return null;
    this.record = rec;
    this.pool.setKeywords(withFeedbackKeywords(this.cfg.keywords, rec));
    return rec;
  }
}
