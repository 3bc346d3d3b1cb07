// Background WAL checkpointer thread (see checkpointer.ts): its own connection to the crawl file runs
// PASSIVE checkpoints every `everyMs`, so copying WAL pages back into the file, and syncing it, happen
// off the crawl's thread. Plain JavaScript: it needs nothing but better-sqlite3.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
let failed = false;
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    // reported once; the crawl's own checkpoints (checkpointer.ts fallback) keep the WAL bounded
    if (!failed) parentPort.postMessage({ error: String(err && err.message ? err.message : err) });
    failed = true;
  }
}, workerData.everyMs);

parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
