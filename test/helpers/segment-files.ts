import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { openDatabase } from '../../src/store/open-database.js';
import { UrlState } from '../../src/frontier/url-state.js';
import { buildConfig } from '../../src/topic/config.js';
import type { TopicInput } from '../../src/topic/topic-schema.js';
import { urlHash } from '../../src/url/url-hash.js';
import { repoRoot } from './crawl-corpus.js';

/**
 * Crawl files written by hand as a worker of a distributed crawl writes its segment: the store's
 * schema (openDatabase), rows with chosen GLOBAL URL and host ids, meta segment_of and worker.
 */

export interface SegUrl {
  id: number;
  url: string;
  hostId: number;
  state: UrlState;
  depth?: number;
  priority?: number;
  parentId?: number | null;
  /** local fetch order in this segment (set with fetchedAt for a fetched or failed page) */
  fetchSeq?: number;
  fetchedAt?: number;
  status?: number | null;
  error?: string | null;
  relevance?: number | null;
  relevant?: boolean | null;
  inlinks?: number;
  inlinkScore?: number;
  /** a stored response: its title and (raw) body */
  response?: { title: string; body: string };
}

export interface SegmentSpec {
  /** meta segment_of; null: a crawl file of a single process (no segment meta) */
  crawlId: string | null;
  worker: string;
  hosts: { id: number; name: string }[];
  urls: SegUrl[];
  links: { from: number; to: number; anchor: string }[];
  meta?: Record<string, string>;
}

/** The configuration of topics/tobacco.yaml, as a crawl records it in meta `config`. */
export function tobaccoConfigJson(): string {
  const topic = parse(readFileSync(join(repoRoot, 'topics/tobacco.yaml'), 'utf8')) as TopicInput;
  return JSON.stringify(buildConfig(topic));
}

/** Writes the segment `spec` to a new crawl file at `path`. */
export function writeSegment(path: string, spec: SegmentSpec): void {
  const db = openDatabase(path);
  try {
    const meta = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
    const all: Record<string, string> = {
      topic: 'tobacco', strategy: 'best-first', created_at: '2026-12-01T10:00:00.000Z', config: tobaccoConfigJson(), suspended_hosts: '[]',
      ...(spec.crawlId === null ? {} : { segment_of: spec.crawlId, worker: spec.worker }),
      ...spec.meta,
    };
    const host = db.prepare('INSERT INTO hosts (id, name, fetched, errors) VALUES (?, ?, ?, ?)');
    const url = db.prepare(
      `INSERT INTO urls (id, hash, fp, url, host_id, state, depth, priority, life, seq, parent_id, inlinks, inlink_score, discovered_at,
                         fetch_seq, fetched_at, fetch_priority, status, error, relevance, relevant)
       VALUES (@id, @hash, @fp, @url, @hostId, @state, @depth, @priority, 3, @id, @parentId, @inlinks, @inlinkScore, 500,
               @fetchSeq, @fetchedAt, @fetchPriority, @status, @error, @relevance, @relevant)`,
    );
    const response = db.prepare(
      `INSERT INTO responses (url_id, status, headers, content_type, title, body, body_codec, body_bytes, wire_bytes, fetched_at, elapsed_ms)
       VALUES (?, 200, '{}', 'text/html', ?, ?, 'identity', ?, ?, ?, 5)`,
    );
    const link = db.prepare('INSERT INTO links (from_id, to_id, anchor) VALUES (?, ?, ?)');
    db.transaction(() => {
      for (const [k, v] of Object.entries(all)) meta.run(k, v);
      for (const h of spec.hosts) {
        const recorded = spec.urls.filter((u) => u.hostId === h.id && (u.state === UrlState.FETCHED || u.state === UrlState.FAILED));
        host.run(h.id, h.name, recorded.length, recorded.filter((u) => u.error).length);
      }
      for (const u of spec.urls) {
        const hash = urlHash(u.url);
        url.run({
          id: u.id, hash, fp: hash.readUInt32BE(0), url: u.url, hostId: u.hostId, state: u.state, depth: u.depth ?? 1, priority: u.priority ?? 0.5,
          parentId: u.parentId ?? null, inlinks: u.inlinks ?? 0, inlinkScore: u.inlinkScore ?? 0, fetchSeq: u.fetchSeq ?? null,
          fetchedAt: u.fetchedAt ?? null, fetchPriority: u.fetchSeq === undefined ? null : (u.priority ?? 0.5), status: u.status ?? null,
          error: u.error ?? null, relevance: u.relevance ?? null, relevant: u.relevant === undefined || u.relevant === null ? null : Number(u.relevant),
        });
        if (u.response) {
          const body = Buffer.from(u.response.body);
          response.run(u.id, u.response.title, body, body.length, body.length + 100, u.fetchedAt ?? 0);
        }
      }
      for (const l of spec.links) link.run(l.from, l.to, l.anchor);
    })();
  } finally {
    db.close();
  }
}
