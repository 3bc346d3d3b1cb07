import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { RunStore, SAVE_CHUNK } from '../../src/frontier/run-store.js';
import { suiteTmpDir } from '../helpers/tmp.js';

const tmp = suiteTmpDir('run-store-snapshot-');

describe('RunStore snapshot', () => {
  it('a large Buffer is saved in chunks and read back whole, in memory of its own (offset 0)', () => {
    const path = join(tmp, 'q.db-queues');
    const big = Buffer.alloc(2 * SAVE_CHUNK + 12_345);
    for (let i = 0; i + 4 <= big.length; i += 4) big.writeUInt32LE((i * 2654435761) >>> 0, i);
    const rs = new RunStore(path, 1, 16);
    rs.push(7, 0.5, 1, 1);
    rs.save({ seen: big, small: Buffer.from([1, 2, 3]), n: 42, s: 'x' });
    const raw = new Database(path, { readonly: true });
    const chunks = raw.prepare("SELECT length(value) FROM saved WHERE key LIKE 'seen#%' ORDER BY key").pluck().all();
    raw.close();
    expect(chunks).toEqual([SAVE_CHUNK, SAVE_CHUNK, 12_345]); // no row holds the whole table
    const back = new RunStore(path, 1, 16, true);
    try {
      const saved = back.load()!;
      expect([...saved.keys()].sort()).toEqual(['n', 's', 'seen', 'small']);
      const seen = saved.get('seen') as Buffer;
      expect(seen.byteOffset).toBe(0);
      expect(seen.equals(big)).toBe(true);
      expect((saved.get('small') as Buffer).equals(Buffer.from([1, 2, 3]))).toBe(true);
      expect(saved.get('n')).toBe(42);
      expect(back.count(7)).toBe(1);
      expect(back.load()).toBeNull(); // good for one load only
    } finally {
      back.close();
    }
  });
});
