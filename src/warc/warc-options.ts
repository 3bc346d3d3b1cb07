/**
 * How a crawl writes WARC files (`--warc DIR`). Contract: files go into `dir` (created if missing),
 * named `<crawl>-<17-digit UTC start time>-<worker>-<5-digit sequence>.warc.gz`, each with a CDXJ
 * index of the same name ending `.cdxj` beside it; a file is closed and the next begun once a
 * record would take it past `maxBytes` (a record larger than that gets a file of its own).
 */
export interface WarcOptions {
  dir: string;
  /** Rotate at this size in bytes (default 1 GB, as Heritrix and Browsertrix). */
  maxBytes: number;
  /** The crawl's name in file names and the warcinfo's isPartOf (the topic, or --crawl-id). */
  crawl: string;
  /** This process's name in file names: "0" for one process, the segment's name for a worker. */
  worker: string;
  /** The warcinfo's fields besides software and format (operator, robots, user agent, …). */
  info?: Record<string, string>;
}

/** Heritrix's and Browsertrix's default: 1 GB. */
export const DEFAULT_WARC_MAX_BYTES = 1_000_000_000;
