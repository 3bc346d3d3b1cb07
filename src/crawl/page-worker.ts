import { parentPort, workerData } from 'node:worker_threads';
import { createAnalyzer, type AnalysisConfig, type AnalysisInput } from './page-analysis.js';

/** Worker thread: runs page analysis for the main thread (analyzer-pool.ts). */
const analyze = createAnalyzer(workerData as AnalysisConfig);
parentPort!.on('message', (msg: { id: number; input: AnalysisInput }) => {
  try {
    parentPort!.postMessage({ id: msg.id, result: analyze(msg.input) });
  } catch (err) {
    parentPort!.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
  }
});
