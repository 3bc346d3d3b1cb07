import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import type { HookItem, Outlink, PageHook } from '../crawl/crawl-types.js';
import { TopicrawlError } from '../errors.js';
import type { PageEvent } from '../events.js';
import type { FetchResult } from '../fetch/fetcher.js';
import type { CheckEvent } from '../revisit/recrawl-types.js';
import { serialize, type Serialized, type WarcFileWriter } from './warc-file-writer.js';
import type { WarcOriginals } from './warc-originals.js';
import {
  metadataRecord, newRecordId, PROFILE_IDENTICAL, PROFILE_NOT_MODIFIED, requestRecord, responseRecord, revisitRecord, warcDate,
  type FetchFacts, type Original,
} from './warc-records.js';

/** The crawl file's copy of a page before a revisit replaces it (for a revisit whose original is in no WARC). */
export interface StoredCopy {
  original: Original;
  /** sha256 of the stored (decoded) body. */
  bodySha256: string;
}

export interface WarcHookOptions {
  /** `crawl`: request, response, metadata per fetch. `recrawl`: revisit records where they apply. */
  mode: 'crawl' | 'recrawl';
  strategy?: string;
  /** recrawl: the folder's response records, the originals of revisits. */
  originals?: WarcOriginals;
  /** recrawl: the crawl file's copy of a page (read before the check replaces it), by URL id. */
  stored?: (urlId: number) => StoredCopy | null;
}

interface Pending {
  facts: FetchFacts;
  res: FetchResult;
  responseId: string | null;
  original: Original | null;
  /** The stored copy's body equals this one's (recrawl, original in no WARC). */
  sameAsStored: boolean;
}

/**
 * Writes a crawl's or recrawl's fetches as WARC records through a WarcFileWriter (a PageHook).
 * Crawl: each fetch that got a response writes a `request` and a `response` record (what was on the
 * wire, see WireExchange) when it arrives, and a `metadata` record once the page is recorded.
 * Recrawl: a 304 writes a `revisit` (server-not-modified), a 2xx whose payload digest equals the
 * original's a `revisit` (identical-payload-digest), anything else a `response`; each with its
 * request and a metadata record. Write failures throw E_WARC_WRITE: the page fails, not the crawl.
 */
export class WarcHook implements PageHook {
  readonly wantsWire = true;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly writer: WarcFileWriter, private readonly o: WarcHookOptions) {}

  async fetched(item: HookItem, res: FetchResult): Promise<void> {
    this.pending.delete(item.id);
    if (!res.wire || res.status === 0) return; // no response: nothing to keep
    const facts: FetchFacts = { url: res.url, date: warcDate(res.startedAt), ip: bareAddress(res.remoteAddress) };
    const p: Pending = { facts, res, responseId: null, original: null, sameAsStored: false };
    if (this.o.mode === 'crawl') {
      p.responseId = newRecordId();
      const rec = responseRecord(facts, p.responseId, res.wire, truncation(res));
      await this.write([serialize(requestRecord(facts, p.responseId, res.wire)), serialize(rec)], item.url);
    } else {
      // the originals are read now: a changed page's stored copy is replaced before `recorded`
      p.original = (await this.o.originals?.lookup(res.url)) ?? null;
      if (!p.original) {
        const copy = this.o.stored?.(item.id) ?? null;
        if (copy) {
          p.original = copy.original;
          p.sameAsStored = createHash('sha256').update(res.body).digest('hex') === copy.bodySha256;
        }
      }
    }
    this.pending.set(item.id, p);
  }

  async recorded(item: HookItem, what: { page: PageEvent; outlinks?: Outlink[] } | { check: CheckEvent }): Promise<void> {
    const p = this.pending.get(item.id);
    this.pending.delete(item.id);
    if (!p) return;
    if ('page' in what) {
      await this.write([serialize(metadataRecord(p.facts, p.responseId, pageFields(what.page, this.o.strategy, what.outlinks ?? [])))], item.url);
      return;
    }
    await this.writeCheck(item, p, what.check);
  }

  /** A recrawl's check: request, then a revisit or a response, then metadata; the response becomes the URL's original. */
  private async writeCheck(item: HookItem, p: Pending, check: CheckEvent): Promise<void> {
    const w = p.res.wire!;
    const id = newRecordId();
    let main: Promise<Serialized>;
    let isResponse = false;
    let digest: string | null = null;
    if (p.res.status === 304 && p.original) {
      main = serialize(revisitRecord(p.facts, id, w, PROFILE_NOT_MODIFIED, p.original, null));
    } else {
      const rec = responseRecord(p.facts, id, w, truncation(p.res));
      digest = rec.warcPayloadDigest ?? null;
      const ok2xx = p.res.status >= 200 && p.res.status < 300 && !p.res.error;
      const identical = ok2xx && p.original !== null && (p.original.digest !== undefined ? p.original.digest === digest : p.sameAsStored);
      if (identical) main = serialize(revisitRecord(p.facts, id, w, PROFILE_IDENTICAL, p.original!, digest));
      else {
        main = serialize(rec);
        isResponse = ok2xx;
      }
    }
    const fields = checkFields(check, p.original);
    const written = await this.write([serialize(requestRecord(p.facts, id, w)), main, serialize(metadataRecord(p.facts, id, fields))], item.url);
    if (isResponse && this.o.originals) {
      const r = written[1];
      this.o.originals.written({ url: p.facts.url, date: p.facts.date, recordId: id, digest: digest ?? undefined }, r.file, r.offset, r.length);
    }
  }

  private async write(group: Promise<Serialized>[], url: string) {
    try {
      return await this.writer.append(await Promise.all(group));
    } catch (err) {
      throw new TopicrawlError('E_WARC_WRITE', `WARC record not written: ${(err as Error).message}`, { url }, { cause: err });
    }
  }
}

/** WARC-Truncated for a body cut short: by the size cap (length), a timeout (time), or else (disconnect). */
function truncation(res: FetchResult): string | null {
  if (!res.wire || res.wire.complete) return null;
  if (res.error?.code === 'E_TOO_LARGE') return 'length';
  if (res.error?.code === 'E_BODY_TIMEOUT') return 'time';
  return 'disconnect';
}

/** The connected address without a port or brackets ("127.0.0.1:8080" → "127.0.0.1"); undefined if none. */
function bareAddress(a: string | undefined): string | undefined {
  if (!a || isIP(a)) return a;
  const m = /^\[(.+)\](?::\d+)?$/.exec(a) ?? /^([^:]+):\d+$/.exec(a);
  return m && isIP(m[1]) ? m[1] : undefined;
}

/** The metadata record of a crawled page: topicrawl's facts, then its outlinks as Heritrix writes them. */
export function pageFields(e: PageEvent, strategy: string | undefined, outlinks: Outlink[]): [string, string][] {
  const f: [string, string][] = [];
  if (e.relevance !== null) f.push(['relevance', String(e.relevance)]);
  if (e.relevant !== null) f.push(['relevant', String(e.relevant)]);
  f.push(['priority', String(e.priority)]);
  if (strategy) f.push(['strategy', strategy]);
  f.push(['depth', String(e.depth)]);
  f.push(['fetch-seq', String(e.seq)]);
  if (e.error) f.push(['error', e.error]);
  for (const l of outlinks) f.push(['outlink', `${l.url} L a/@href`]);
  return f;
}

/** The metadata record of a revisit check. */
function checkFields(c: CheckEvent, original: Original | null): [string, string][] {
  const f: [string, string][] = [
    ['revisit-outcome', c.outcome], ['url-class', c.cls], ['checks', String(c.checks)], ['changes', String(c.changes)],
  ];
  if (c.rate !== null) f.push(['change-rate-per-day', String(c.rate)]);
  if (c.nextAt !== null) f.push(['next-due', new Date(c.nextAt).toISOString()]);
  if (original) f.push(['original-date', original.date]);
  return f;
}
