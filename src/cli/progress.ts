import cliProgress from 'cli-progress';
import type { CrawlEvents, ProgressSnapshot, TypedEmitter } from '../events.js';

/** Where progress and messages go: stderr, or a capture of it; a live line only if `isTTY`. */
export type ProgressStream = NodeJS.WritableStream & { isTTY?: boolean };

/**
 * Shows a crawl's progress on stderr: a live line on a terminal (cli-progress), or a plain log
 * line every `everyMs` otherwise. Returns a function that stops the display.
 */
export function attachProgress(crawler: TypedEmitter<CrawlEvents>, opts: { maxPages: number; tty: boolean; everyMs?: number; stream?: ProgressStream }): () => void {
  const stream = opts.stream ?? process.stderr;
  if (opts.tty) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: '{bar} {value}/{total} pages | {pps} p/s | frontier {frontier} | harvest≈{harvest}% | errors {errors} | new/page {disc}',
        hideCursor: true,
        clearOnComplete: false,
        barsize: 24,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    const onProgress = (s: ProgressSnapshot) => {
      const payload = fields(s);
      if (!started) {
        bar.start(opts.maxPages, s.fetched, payload);
        started = true;
      } else bar.update(s.fetched, payload);
    };
    crawler.on('progress', onProgress);
    return () => {
      crawler.off('progress', onProgress);
      if (started) bar.stop();
    };
  }
  let last = 0;
  const every = opts.everyMs ?? 2000;
  const onProgress = (s: ProgressSnapshot) => {
    const now = Date.now();
    if (now - last < every) return;
    last = now;
    const f = fields(s);
    stream.write(
      `[topicrawl] fetched=${s.fetched} pages/s=${f.pps} frontier=${s.frontier} harvest≈${f.harvest}% errors=${s.errors} new/page=${f.disc}\n`,
    );
  };
  const onWarn = (w: { code: string; message: string; url?: string }) => stream.write(`[topicrawl] warning ${w.code}: ${w.message}${w.url ? ` (${w.url})` : ''}\n`);
  crawler.on('progress', onProgress);
  crawler.on('warn', onWarn);
  return () => {
    crawler.off('progress', onProgress);
    crawler.off('warn', onWarn);
  };
}

function fields(s: ProgressSnapshot) {
  return {
    pps: s.pagesPerSec.toFixed(1),
    frontier: s.frontier,
    harvest: (s.harvest * 100).toFixed(1),
    errors: s.errors,
    disc: s.discoveryRate.toFixed(2),
  };
}
