import { parentPort, workerData } from 'node:worker_threads';
import { createAnalyzer, type AnalysisConfig, type AnalysisInput } from './page-analysis.js';
import { packAnalysis } from './analysis-wire.js';

/**
 * Worker thread: runs page analysis for the main thread (analyzer-pool.ts). Pages come in batches
 * (`{ pages }`: those the main thread handed over in one turn of its event loop); each page's
 * result goes back as soon as it is ready, so that the main thread records it while this thread
 * analyses the next (results held for the batch measured 0.92x the pages/s). Each result carries when
 * its analysis started and ended (`at`: ms, this thread's `performance.timeOrigin + now()`, a clock
 * the crawl's thread shares), so the pool can tell where a page's time at analysis went.
 */
let analyze = createAnalyzer(workerData as AnalysisConfig);
// loaded (the language detector's native module included): from now on the thread may be ended
parentPort!.postMessage({ ready: true });
parentPort!.on('message', (msg: { pages: { id: number; input: AnalysisInput }[] } | { close: true } | { keywords: Record<string, number> }) => {
  // relevance feedback (AnalyzerPool.setKeywords): the pages sent after this message use these keywords
  if ('keywords' in msg) {
    analyze = createAnalyzer({ ...(workerData as AnalysisConfig), keywords: msg.keywords });
    return;
  }
  // the pool's close: after the pages sent before it, at a point where no native code runs
  if ('close' in msg) {
    parentPort!.close();
    return;
  }
  for (const { id, input } of msg.pages) {
    try {
      const started = performance.timeOrigin + performance.now();
      const { wire, transfer } = packAnalysis(analyze(input));
      parentPort!.postMessage({ id, result: wire, at: [started, performance.timeOrigin + performance.now()] }, transfer);
    } catch (err) {
      parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
    }
  }
});
