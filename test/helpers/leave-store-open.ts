// Run as a child process by test/store/checkpointer.test.ts: opens a crawl file with a background
// checkpoint thread, writes to it, and ends WITHOUT closing it (as a crawl that hit a fatal error
// before close() did). The process must then end by itself: nothing of the store may keep it alive.
import { SqliteStore } from '../../src/store/sqlite-store.js';

const store = new SqliteStore(process.argv[2], { backgroundCheckpoint: true, commitEveryMs: 0 });
store.transaction(() => store.setMeta('topic', 'left-open'));
process.stdout.write('written\n');
