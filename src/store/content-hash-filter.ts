import type Database from 'better-sqlite3';

/**
 * Which content hashes the crawl file may hold, in memory: a page whose hash is not here is not an
 * exact duplicate, and needs no SELECT (one per page before). A key is the hash's first 30 bits (a
 * small integer in a Set, ~20 bytes a page), so a hit may be another hash: the caller then asks the
 * file. Filled from the file on first use; kept current by temporary triggers on this connection,
 * so every writer of `urls.content_hash` through it (page records, revisits) is seen. Hashes only
 * get added: one set to NULL or of a page no longer fetched stays a (harmless) hit.
 */
export class ContentHashFilter {
  private keys: Set<number> | null = null;

  constructor(private readonly db: Database.Database) {}

  /** Whether the file may hold this content hash (false: it certainly does not). */
  mayHold(hash: Uint8Array): boolean {
    return this.filled().has(key(hash));
  }

  private filled(): Set<number> {
    if (this.keys) return this.keys;
    const keys = new Set<number>();
    const note = (h: unknown) => {
      if (h instanceof Uint8Array && h.length >= 4) keys.add(key(h));
      return null;
    };
    this.db.function('topicrawl_note_content_hash', { deterministic: false, varargs: false }, note);
    this.db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS content_hash_updated AFTER UPDATE OF content_hash ON urls
                    WHEN NEW.content_hash IS NOT NULL BEGIN SELECT topicrawl_note_content_hash(NEW.content_hash); END;
                  CREATE TEMP TRIGGER IF NOT EXISTS content_hash_inserted AFTER INSERT ON urls
                    WHEN NEW.content_hash IS NOT NULL BEGIN SELECT topicrawl_note_content_hash(NEW.content_hash); END;`);
    for (const h of this.db.prepare('SELECT content_hash FROM urls WHERE content_hash IS NOT NULL').pluck().iterate()) note(h);
    this.keys = keys;
    return keys;
  }
}

function key(h: Uint8Array): number {
  return ((h[0] << 22) | (h[1] << 14) | (h[2] << 6) | (h[3] >> 2)) >>> 0;
}
