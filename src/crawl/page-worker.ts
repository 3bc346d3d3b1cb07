import { parentPort, workerData } from 'node:worker_threads';
import { createAnalyzer, type AnalysisConfig, type AnalysisInput } from './page-analysis.js';
import { packAnalysis } from './analysis-wire.js';

/** Worker thread: runs page analysis for the main thread (analyzer-pool.ts). */
let analyze = createAnalyzer(workerData as AnalysisConfig);
// loaded (the language detector's native module included): from now on the thread may be ended
parentPort!.postMessage({ ready: true });
parentPort!.on('message', (msg: { id: number; input: AnalysisInput } | { close: true } | { keywords: Record<string, number> }) => {
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
  try {
    parentPort!.postMessage({ id: msg.id, result: packAnalysis(analyze(msg.input)) });
  } catch (err) {
    parentPort!.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
  }
});
