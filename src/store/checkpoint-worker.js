// Background WAL checkpointer thread (see checkpointer.ts): its own connection to the crawl file runs
// PASSIVE checkpoints every `everyMs`, so copying WAL pages back into the file, and syncing it, happen
// off the crawl's thread. Plain JavaScript: it needs nothing but better-sqlite3.
//
// `workerData.closed` is an Int32Array on shared memory: the thread sets it to 1 (and notifies) once
// its connection is closed or could not be opened, so the owner can wait for that synchronously:
// a connection left open after the owner's close() would, when it finally closes, checkpoint and
// delete the WAL *by name*, which by then may be the WAL of a new crawl file at the same path.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const closed = workerData.closed;
function released() {
  Atomics.store(closed, 0, 1);
  Atomics.notify(closed, 0);
}

let db = null;
try {
  db = new Database(workerData.path, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
} catch (err) {
  parentPort.postMessage({ error: String(err && err.message ? err.message : err) });
  try {
    db?.close();
  } catch {
    // nothing more to release
  }
  db = null;
  released();
}
let failed = false;
const timer = db
  ? setInterval(() => {
      try {
        db.pragma('wal_checkpoint(PASSIVE)');
      } catch (err) {
        // reported once; the crawl's own checkpoints (checkpointer.ts fallback) keep the WAL bounded
        if (!failed) parentPort.postMessage({ error: String(err && err.message ? err.message : err) });
        failed = true;
      }
    }, workerData.everyMs)
  : null;

parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  if (timer) clearInterval(timer);
  // tests only: a thread slow to close (as under load), to show that the owner waits for it
  if (workerData.closeDelayMs > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.closeDelayMs);
  try {
    db?.close();
  } finally {
    released();
    parentPort.close();
  }
});
