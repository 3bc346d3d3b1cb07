/**
 * The SQLite schema of a crawl file. One file per crawl; WAL mode. `SCHEMA_VERSION` is stored in
 * `meta` and checked on open so an old or foreign file gets a clear error instead of odd results.
 *
 * URL states: see {@link UrlState}.
 */
export const SCHEMA_VERSION = 1;

export { UrlState } from '../frontier/url-state.js';

export const DDL = `
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS hosts (
  id              INTEGER PRIMARY KEY,
  name            TEXT NOT NULL UNIQUE,          -- host[:port], lower-case
  fetched         INTEGER NOT NULL DEFAULT 0,    -- pages recorded (any outcome)
  errors          INTEGER NOT NULL DEFAULT 0,
  next_at         INTEGER NOT NULL DEFAULT 0,    -- ms since epoch: earliest next request
  delay_ms        INTEGER,                       -- effective politeness delay
  robots_status   TEXT,                          -- ok | allow-all | disallow-all
  robots_at       INTEGER,
  crawl_delay_ms  INTEGER
);
CREATE TABLE IF NOT EXISTS urls (
  id             INTEGER PRIMARY KEY,
  hash           BLOB NOT NULL,                  -- 16 bytes: SHA-256 prefix of the normalised URL (unique; the frontier's seen-index finds it)
  fp             INTEGER,                        -- the hash's first 4 bytes as an unsigned integer: rebuilds the seen-index fast
  url            TEXT NOT NULL,
  host_id        INTEGER NOT NULL REFERENCES hosts(id),
  state          INTEGER NOT NULL,
  depth          INTEGER NOT NULL,
  priority       REAL NOT NULL,
  life           INTEGER NOT NULL,
  seq            INTEGER NOT NULL,               -- discovery order: FIFO tie-break
  parent_id      INTEGER,
  anchor         TEXT,                           -- anchor text of the first link that found it
  inlinks        INTEGER NOT NULL DEFAULT 0,     -- fetched pages linking here
  inlink_score   REAL NOT NULL DEFAULT 0,        -- best of their contributions (see inlinkContribution)
  hops           INTEGER NOT NULL DEFAULT 0,     -- redirect hops that led here
  discovered_at  INTEGER NOT NULL,
  fetch_seq      INTEGER,                        -- order in which it was fetched
  fetched_at     INTEGER,
  fetch_priority REAL,                           -- priority it had when the frontier handed it out
  status         INTEGER,                        -- HTTP status (0: no response)
  error          TEXT,                           -- error code, if any
  relevance      REAL,
  relevant       INTEGER,
  content_hash   BLOB,
  note           TEXT,
  simhash        BLOB,                           -- 8 bytes: 64-bit SimHash of the text's shingles (src/dedup/), for near-duplicates
  lang           TEXT,                           -- language of the text (ISO 639-1, src/lang/); NULL: not told
  dup_of         INTEGER,                        -- the earlier page this one duplicates (exact content, or SimHash within dedup.max_distance)
  dup_distance   INTEGER                         -- bits between their SimHashes (0 for exact duplicate content)
);
CREATE UNIQUE INDEX IF NOT EXISTS urls_fetch_seq ON urls(fetch_seq) WHERE fetch_seq IS NOT NULL;
CREATE INDEX IF NOT EXISTS urls_content_hash ON urls(content_hash) WHERE content_hash IS NOT NULL;
-- rows in the order they are written (the row id), found by url_id through its index: pages are fetched
-- in best-first order, random in url_id, and a table keyed by url_id took each row into the middle of
-- the b-tree (leaf splits, each leaf written ~2 times over a crawl). Files of earlier releases keep
-- url_id as the row id: every statement names url_id, so both layouts work alike.
CREATE TABLE IF NOT EXISTS responses (
  url_id        INTEGER NOT NULL UNIQUE REFERENCES urls(id),
  status        INTEGER NOT NULL,
  headers       TEXT NOT NULL,                   -- JSON object
  content_type  TEXT,
  charset       TEXT,
  title         TEXT,
  body          BLOB,                            -- raw (decompressed) body, compressed with body_codec
  body_codec    TEXT NOT NULL,                   -- 'br' | 'identity'
  body_bytes    INTEGER NOT NULL,                -- size before our compression
  wire_bytes    INTEGER NOT NULL,
  fetched_at    INTEGER NOT NULL,
  elapsed_ms    INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS links (
  from_id  INTEGER NOT NULL,
  to_id    INTEGER NOT NULL,
  anchor   TEXT NOT NULL,
  PRIMARY KEY (from_id, to_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS links_to ON links(to_id);
CREATE TABLE IF NOT EXISTS metrics (
  at            INTEGER NOT NULL,                -- ms since epoch
  fetched       INTEGER NOT NULL,
  queued        INTEGER NOT NULL,
  relevant      INTEGER NOT NULL,
  errors        INTEGER NOT NULL,
  bytes         INTEGER NOT NULL,
  known         INTEGER NOT NULL,
  pruned        INTEGER NOT NULL,
  pages_per_sec REAL NOT NULL,
  discovery_rate REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS revisits (
  url_id          INTEGER PRIMARY KEY REFERENCES urls(id),
  class           TEXT NOT NULL,                 -- URL class (src/revisit/url-class.ts)
  next_at         INTEGER NOT NULL,              -- ms since epoch: when the page is due
  checks          INTEGER NOT NULL DEFAULT 0,    -- revisits compared with the stored copy (304 included)
  changes         INTEGER NOT NULL DEFAULT 0,    -- checks that found the normalised text changed
  first_check_at  INTEGER NOT NULL,              -- fetch time of the copy the first check compared against
  last_check_at   INTEGER NOT NULL,              -- time of the latest check (first_check_at before any)
  etag            TEXT,
  last_modified   TEXT,
  text_hash       TEXT,                          -- hex hash of the normalised text (src/revisit/text-fingerprint.ts)
  failures        INTEGER NOT NULL DEFAULT 0,    -- consecutive failed checks
  deleted_at      INTEGER,                       -- set when the page was found gone (404/410, repeated failures)
  -- what Last-Modified told while it was believed (src/revisit/last-modified.ts); lm_trusted 0: no longer
  lm_trusted      INTEGER NOT NULL DEFAULT 1,
  lm_changes      INTEGER NOT NULL DEFAULT 0,    -- checks that found a change with a believable Last-Modified
  lm_age_ms       REAL NOT NULL DEFAULT 0,       -- their summed ages of the latest change
  lm_unchanged_ms REAL NOT NULL DEFAULT 0        -- summed intervals of checks that found no change
);
CREATE INDEX IF NOT EXISTS revisits_due ON revisits(next_at) WHERE deleted_at IS NULL;
CREATE TABLE IF NOT EXISTS checks (
  url_id      INTEGER NOT NULL,
  at          INTEGER NOT NULL,                  -- ms since epoch
  status      INTEGER NOT NULL,                  -- HTTP status (0: no response)
  outcome     TEXT NOT NULL,                     -- changed | unchanged | not_modified | failed | deleted
  wire_bytes  INTEGER NOT NULL,
  saved_bytes INTEGER NOT NULL                   -- a 304: the stored body's size, not transferred again
);
CREATE INDEX IF NOT EXISTS checks_url ON checks(url_id, at);
CREATE INDEX IF NOT EXISTS checks_at ON checks(at);
`;

/**
 * Brings a file written by an earlier release of schema version 1 up to date: drops the queue index
 * (the frontier keeps its own queues now) and adds urls.fp (filled lazily by the frontier).
 */
/** Columns added to `revisits` after files with that table existed: added on open when missing. */
export const REVISIT_LM_COLUMNS: readonly (readonly [string, string])[] = [
  ['lm_trusted', 'INTEGER NOT NULL DEFAULT 1'],
  ['lm_changes', 'INTEGER NOT NULL DEFAULT 0'],
  ['lm_age_ms', 'REAL NOT NULL DEFAULT 0'],
  ['lm_unchanged_ms', 'REAL NOT NULL DEFAULT 0'],
];

export const MIGRATIONS = `DROP INDEX IF EXISTS urls_queue;`;

/**
 * Columns added to `urls` after files with that table existed (near-duplicates and language,
 * issue 14): added on a writable open when missing. Readers of older files opened read-only check
 * for them (see {@link urlsHasDedupColumns}): such a file has no near-duplicates and no languages.
 */
export const URL_DEDUP_COLUMNS: readonly (readonly [string, string])[] = [
  ['simhash', 'BLOB'],
  ['lang', 'TEXT'],
  ['dup_of', 'INTEGER'],
  ['dup_distance', 'INTEGER'],
];

/** Meta key: how many times a host was suspended because its robots.txt could not be fetched (an error with no page outcome). */
export const ROBOTS_UNREACHABLE_KEY = 'robots_unreachable';

/**
 * Meta key of a merged view of a crawl's segments (segment-merge.ts): the stored (compressed) body
 * bytes of its responses, whose bodies are not copied into the view. Absent from crawl files.
 */
export const MERGED_STORED_BYTES_KEY = 'merged_stored_bytes';
