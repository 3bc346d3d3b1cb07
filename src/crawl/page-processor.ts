import { createHash } from 'node:crypto';
import type { PageEvent } from '../events.js';
import type { FetchResult } from '../fetch/fetcher.js';
import type { Frontier, FrontierItem } from '../frontier/frontier.js';
import type { Parser } from '../parse/parser.js';
import type { RelevanceScorer } from '../relevance/relevance-scorer.js';
import { UrlState } from '../store/schema.js';
import type { Store } from '../store/store.js';
import type { PageInfo, Strategy } from '../strategy/strategy.js';
import { hostKey } from '../url/host.js';
import { tryNormalizeUrl } from '../url/normalize.js';
import type { ScopeDecision } from '../url/scope.js';
import { urlHash } from '../url/url-hash.js';
import { intakeLinks, type RawLink } from './link-intake.js';

export interface ProcessorDeps {
  store: Store;
  frontier: Frontier;
  parser: Parser;
  scorer: RelevanceScorer;
  strategy: Strategy;
  scope: (url: string) => ScopeDecision;
  decode: (body: Buffer, contentType: string | null) => { text: string; charset: string };
  threshold: number;
  maxDepth: number;
  maxRedirects: number;
}

/** What one page added to the crawl, for stats and events. */
export interface ProcessedPage {
  event: PageEvent;
  relevant: boolean;
  error: boolean;
  newUrls: number;
  pruned: number;
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/**
 * Records one fetch outcome: the response, the page's relevance, its links and the strategy's
 * decisions, all in one transaction. Redirects are followed by the crawl itself: the target is
 * normalised, scoped and deduplicated like a link, and queued at the redirecting URL's place
 * (same depth, priority and life) with one more hop, up to the hop cap.
 */
export function processFetch(deps: ProcessorDeps, item: FrontierItem, res: FetchResult, fetchSeq: number): ProcessedPage {
  const { store } = deps;
  const fetchedAt = res.startedAt || Date.now();
  let relevance: number | null = null;
  let relevant = false;
  let error: string | null = res.error?.code ?? null;
  let note: string | null = res.error?.message ?? null;
  let contentHash: Buffer | null = null;
  let title: string | null = null;
  let charset: string | null = null;
  let links: RawLink[] = [];
  let redirect: string | null = null;

  if (!res.error) {
    if (res.status >= 300 && res.status < 400 && res.location) {
      redirect = res.location;
    } else if (res.status >= 400) {
      error = 'E_HTTP';
    } else if (res.status >= 200 && res.status < 300) {
      if (!res.contentType || !HTML_TYPES.has(res.contentType)) {
        note = `not parsed: ${res.contentType ?? 'no content type'}`;
      } else {
        const decoded = deps.decode(res.body, res.headers['content-type'] ?? null);
        charset = decoded.charset;
        const page = deps.parser.parse(decoded.text, item.url);
        title = page.title;
        const anchors = store.anchorsTo(item.id);
        if (item.anchor && !anchors.includes(item.anchor)) anchors.push(item.anchor);
        relevance = deps.scorer.score({ url: item.url, title: page.title, headings: page.headings, anchors, body: page.text });
        relevant = relevance >= deps.threshold;
        contentHash = createHash('sha256').update(page.title).update('\n').update(page.text).digest().subarray(0, 16);
        const dup = store.findByContentHash(contentHash);
        if (dup !== undefined && dup !== item.id) {
          note = `duplicate content of url #${dup}`;
        } else if (page.robots.nofollow) {
          note = 'meta robots nofollow';
        } else {
          links = page.links.filter((l) => !l.rel.includes('nofollow')).map((l) => ({ url: l.url, text: l.text }));
          if (page.canonical && page.canonical !== item.url) {
            const canon = tryNormalizeUrl(page.canonical);
            if (canon && canon !== item.url && hostKey(canon) === item.host) {
              links.unshift({ url: canon, text: '' });
              note = `canonical ${canon}`;
            }
          }
        }
        if (page.robots.noindex) note = note ? `${note}; noindex` : 'noindex';
      }
    }
  }

  const info: PageInfo = { id: item.id, url: item.url, depth: item.depth, life: item.life, priority: item.priority, relevance, relevant };
  const intake = links.length ? intakeLinks({ frontier: deps.frontier, strategy: deps.strategy, scope: deps.scope, maxDepth: deps.maxDepth }, info, links) : null;
  let newUrls = 0;
  let pruned = 0;

  store.transaction(() => {
    if (res.status > 0) {
      store.recordResponse({
        urlId: item.id, status: res.status, headers: res.headers, contentType: res.contentType, charset, title,
        body: res.body, wireBytes: res.wireBytes, fetchedAt, elapsedMs: res.elapsedMs,
      });
    }
    if (redirect) {
      const r = followRedirect(deps, item, redirect);
      error = r.error;
      note = r.note;
      newUrls += r.added;
    }
    if (intake) {
      const out = intake.apply();
      store.recordLinks(item.id, out.links.filter(Boolean));
      newUrls += out.added;
      pruned += out.pruned;
    }
    store.recordOutcome({
      urlId: item.id, state: res.status > 0 ? UrlState.FETCHED : UrlState.FAILED, status: res.status, error,
      relevance, relevant: relevance === null ? null : relevant, contentHash, fetchedAt, fetchSeq, fetchPriority: item.priority, note,
    });
    store.bumpHost(item.hostId, 1, error && error !== 'E_NOT_HTML' ? 1 : 0);
  });

  const isError = res.status === 0 || res.status >= 400 || (error !== null && error.startsWith('E_REDIRECT'));
  return {
    event: {
      url: item.url, status: res.status, depth: item.depth, relevance, relevant: relevance === null ? null : relevant,
      priority: item.priority, error: error ?? undefined, bytes: res.body.length, seq: fetchSeq,
    },
    relevant,
    error: isError,
    newUrls,
    pruned,
  };
}

function followRedirect(deps: ProcessorDeps, item: FrontierItem, location: string): { error: string | null; note: string; added: number } {
  const target = tryNormalizeUrl(location);
  if (!target) return { error: 'E_INVALID_URL', note: `redirect to invalid URL ${location}`, added: 0 };
  if (target === item.url) return { error: 'E_REDIRECT_LOOP', note: `redirect to itself`, added: 0 };
  if (item.hops + 1 > deps.maxRedirects) return { error: 'E_REDIRECT_LIMIT', note: `redirect hop ${item.hops + 1} over the cap`, added: 0 };
  const scope = deps.scope(target);
  if (!scope.ok) return { error: null, note: `redirect out of scope (${scope.reason}): ${target}`, added: 0 };
  const hash = urlHash(target);
  const known = deps.frontier.lookup([hash]).get(hash.toString('hex'));
  if (known) {
    deps.store.recordLinks(item.id, [{ toId: known.id, anchor: '' }]);
    return { error: null, note: `redirect to known URL ${target}`, added: 0 };
  }
  const [id] = deps.frontier.add([
    { hash, url: target, host: hostKey(target), depth: item.depth, priority: item.priority, life: item.life, parentId: item.id, anchor: item.anchor, hops: item.hops + 1 },
  ]);
  deps.store.recordLinks(item.id, [{ toId: id, anchor: '' }]);
  return { error: null, note: `redirect to ${target}`, added: 1 };
}
