import type { PageEvent } from '../events.js';
import type { FetchResult } from '../fetch/fetcher.js';
import type { Frontier, KnownUrl, Lease } from '../frontier/frontier.js';
import { UrlState } from '../frontier/url-state.js';
import type { RecordedLink, RecordedUrl, Store } from '../store/store.js';
import type { LinkInfo, PageInfo, Strategy } from '../strategy/strategy.js';
import { hostKey } from '../url/host.js';
import { tryNormalizeUrl, type NormalizeOptions } from '../url/normalize.js';
import type { ScopeDecision } from '../url/scope.js';
import { urlHash } from '../url/url-hash.js';
import type { AnalyzerPool } from './analyzer-pool.js';
import { intakeLinks, linkHash, type IntakeAnswer } from './link-intake.js';
import type { LookupGate } from './lookup-gate.js';
import type { StrategyTiming } from './strategy-timing.js';
import type { LinksCut, PageAnalysis } from './page-analysis.js';
import type { PipelineMeter } from './pipeline-meter.js';
import { HTML_TYPES } from '../fetch/html-types.js';
import type { NearDupIndex } from '../dedup/near-dup-index.js';
import { fingerprintOf } from '../dedup/simhash.js';
import type { DuplicateOf } from '../store/store.js';

export interface ProcessorDeps {
  store: Store;
  frontier: Frontier;
  analyzers: AnalyzerPool;
  strategy: Strategy;
  scope: (url: string) => ScopeDecision;
  threshold: number;
  maxDepth: number;
  maxRedirects: number;
  normalize: NormalizeOptions;
  /** Runs one page's record after another's (see processFetch). */
  serial: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Orders the pages' frontier lookups, sent ahead of their serial part (see LookupGate). */
  lookups: LookupGate;
  /** Hears how long the strategy's calls took (monitoring); absent: they are not timed. */
  timing?: StrategyTiming;
  /** The fingerprints of the pages fetched so far (`dedup.enabled`), or null: no near-duplicate detection. */
  nearDups: NearDupIndex | null;
  /** `dedup.follow_links`: a near-duplicate's links are followed. */
  followDuplicateLinks: boolean;
  /** `scope.languages` (null: any language): a page detected in another one is out of scope. */
  languages: ReadonlySet<string> | null;
  /** Hears when pages wait for or are in analysis (the crawl's pipeline figures); absent: not measured. */
  meter?: PipelineMeter;
}

/** What one page added to the crawl, for stats and events. */
export interface ProcessedPage {
  event: PageEvent;
  /** Counts as a relevant page in the harvest: relevant, not a duplicate, in a language in scope. */
  relevant: boolean;
  error: boolean;
  newUrls: number;
  /** change in the number of pruned URLs: new ones pruned, less pruned ones revived */
  pruned: number;
  /** The links the page's analysis found (normalised, in scope), for per-page outputs (WARC metadata). */
  outlinks: { url: string; anchor: string }[];
  /**
   * Settles when the frontier applied the strategy's updates after this page (sent in order before
   * any later call; a shared frontier sends them with its next call). A rejection is the frontier's
   * failure, not the page's.
   */
  heard: Promise<void>;
}


/**
 * Records one fetch outcome. The heavy part (decode, parse, score, links, compression) runs on the
 * analyzer pool; then the page's links go through the strategy into the frontier (one intake), the
 * page is recorded in the store (one unit of work), and the strategy hears of it. Redirects are
 * followed by the crawl itself: the target is normalised, scoped and deduplicated like a link, and
 * queued at the redirecting URL's place (same depth, priority and life) with one more hop, up to the
 * hop cap. `serial` runs the part from the frontier lookup to the record without another page's
 * in between (one process's pages are recorded one at a time).
 */
export async function processFetch(deps: ProcessorDeps, item: Lease, res: FetchResult, attempts = 1): Promise<ProcessedPage> {
  const { store } = deps;
  const ok2xx = !res.error && res.status >= 200 && res.status < 300;
  const html = ok2xx && res.contentType !== null && HTML_TYPES.has(res.contentType);
  let analysis: PageAnalysis | null = null;
  if (res.status > 0 && (res.body.length > 0 || html)) {
    const anchors = html ? (item.anchors ? [...item.anchors] : await store.anchorsTo(item.id)) : [];
    if (html && item.anchor && !anchors.includes(item.anchor)) anchors.push(item.anchor);
    deps.meter?.stage('analysing', 1);
    try {
      analysis = await deps.analyzers.analyze({
        url: item.url, host: item.host, body: res.body, contentType: res.headers['content-type'] ?? null, html, anchors,
      });
    } finally {
      deps.meter?.stage('analysing', -1);
    }
  }
  const turn = deps.lookups.turn();
  try {
    await turn.ready;
    // the page's links are looked up now, while the page before is still being recorded
    let known: Promise<Map<string, KnownUrl>> | null = null;
    if (analysis?.contentHash && analysis.links.length && !analysis.nofollow) {
      known = deps.frontier.known(analysis.links.map((l) => ({ hash: linkHash(l), host: l.host })));
      known.catch(() => undefined); // (awaited in the serial part, or not needed: a duplicate page)
    }
    const done = await deps.serial(() => recordFetch(deps, item, res, ok2xx && !html, analysis, attempts, known, turn.open));
    // the intake's answer, awaited outside the serial part (links recorded under reserved ids: see
    // intakeLinks); links whose URL another worker added meanwhile are corrected in the record
    if (done.answer) {
      const a = await done.answer;
      done.page.newUrls += a.added;
      done.page.pruned += a.pruned;
      if (a.relinked.length) await store.relinkTargets(item.id, a.relinked);
    }
    done.page.event.newUrls = done.page.newUrls;
    return done.page;
  } finally {
    turn.open();
  }
}

/** The note of a near-duplicate page (its own function: see recordFetch's notes). */
function nearDuplicateNote(d: DuplicateOf): string {
  return `near-duplicate of url #${d.id} (SimHash distance ${d.distance})`;
}

/** `notes` with `more` after them ('; ' between). */
function withNote(notes: string, more: string): string {
  return notes === '' ? more : `${notes}; ${more}`;
}

/**
 * The serial part of processFetch. `known`: the lookup of the page's links, sent ahead; `sent`:
 * lets the next page's lookup go (called once this page's intake is sent, or when it has none).
 */
async function recordFetch(
  deps: ProcessorDeps, item: Lease, res: FetchResult, notHtml: boolean, analysis: PageAnalysis | null, attempts: number,
  known: Promise<Map<string, KnownUrl>> | null, sent: () => void,
): Promise<{ page: ProcessedPage; answer: Promise<IntakeAnswer> | null }> {
  const { store } = deps;
  const relevance = analysis?.relevance ?? null;
  // a page in a language out of scope is not relevant to the topic, whatever its score
  const lang = analysis?.lang ?? null;
  const outOfLanguage = deps.languages !== null && lang !== null && !deps.languages.has(lang);
  const relevant = relevance !== null && relevance >= deps.threshold && !outOfLanguage;
  let duplicateOf: DuplicateOf | null = null;
  let error: string | null = res.error?.code ?? (res.status >= 400 ? 'E_HTTP' : null);
  let note: string | null = res.error?.message ?? null;
  if (notHtml) note = `not parsed: ${res.contentType ?? 'no content type'}`;
  let newUrls = 0;
  let pruned = 0;
  /** Set when the page's links were taken in and cut at the cap (recorded in the note and the event). */
  let linksCut: LinksCut | null = null;
  const fetchedAt = res.startedAt || Date.now();
  let contentHash: Buffer | null = null;
  const page: PageInfo = { id: item.id, url: item.url, depth: item.depth, life: item.life, priority: item.priority, relevance, relevant };
  let links: RecordedLink[] = [];
  let intake: { infos: LinkInfo[]; ids: number[] } | null = null;
  let answer: Promise<IntakeAnswer> | null = null;
  if (!res.error && res.status >= 300 && res.status < 400 && res.location) {
    const r = await followRedirect(deps, item, res.location);
    error = r.error;
    note = r.note;
    newUrls += r.added;
    if (r.link) links = [r.link];
    // the strategy hears of every recorded page, as the resume replay does (a redirect links to its target)
    intake = { infos: [], ids: r.link ? [r.link.toId] : [] };
  } else if (analysis?.contentHash) {
    contentHash = Buffer.from(analysis.contentHash);
    const dup = await store.findByContentHash(contentHash);
    let notes = ''; // (a string, not an array: pushes on rare branches deoptimised this function again and again)
    const exact = dup !== undefined && dup !== item.id;
    if (exact) duplicateOf = { id: dup, distance: 0 };
    else if (deps.nearDups && analysis.simhash) duplicateOf = deps.nearDups.find(fingerprintOf(analysis.simhash), item.id);
    if (deps.nearDups && analysis.simhash) deps.nearDups.add(item.id, fingerprintOf(analysis.simhash));
    if (outOfLanguage) notes = withNote(notes, `language ${lang} not in scope.languages`);
    if (exact) notes = withNote(notes, `duplicate content of url #${dup}`);
    else if (duplicateOf) notes = withNote(notes, nearDuplicateNote(duplicateOf));
    if (exact || outOfLanguage || (duplicateOf && !deps.followDuplicateLinks)) {
      // links not followed
    } else if (analysis.nofollow) notes = withNote(notes, 'meta robots nofollow');
    else {
      if (analysis.linksCut) notes = withNote(notes, linksCutNote((linksCut = analysis.linksCut)));
      if (analysis.links.length) {
        const out = await intakeLinks({ frontier: deps.frontier, strategy: deps.strategy, maxDepth: deps.maxDepth, timing: deps.timing }, page, analysis.links, known, sent);
        links = out.links;
        intake = { infos: out.infos, ids: out.links.map((l) => l.toId) };
        answer = out.answer;
        answer.catch(() => undefined); // (awaited by processFetch; a failure there is the page's)
        pruned -= out.revived;
      }
    }
    if (analysis.canonical) notes = withNote(notes, `canonical ${analysis.canonical}`);
    if (analysis.noindex) notes = withNote(notes, 'noindex');
    note = notes !== '' ? notes : note;
  }
  sent(); // (a page whose links went in opened the gate as its intake was sent; the others open it here)
  if (attempts > 1) note = note ? `${note} (after ${attempts} attempts)` : `after ${attempts} attempts`;
  const fetchSeq = (await store.recordPage({
    url: recordedUrl(item), state: res.status > 0 ? UrlState.FETCHED : UrlState.FAILED, status: res.status, error, note,
    relevance, relevant: relevance === null ? null : relevant, contentHash, fetchedAt,
    simhash: analysis?.simhash ?? null, lang, duplicateOf,
    response: res.status > 0
      ? {
          status: res.status, headers: res.headers, contentType: res.contentType, charset: analysis?.charset ?? null,
          title: analysis?.title ?? null, stored: analysis?.stored ?? null, bodyBytes: res.body.length, wireBytes: res.wireBytes,
          fetchedAt, elapsedMs: res.elapsedMs,
        }
      : null,
    links, hostCounts: { fetched: 1, errors: error ? 1 : 0 },
  }))!;
  // the strategy's updates are sent now (in order, before the next page's lookup); their reply is
  // the caller's to await (ProcessedPage.heard), the next page need not wait for it
  const heard = strategyHears(deps, page, intake?.infos ?? [], intake?.ids ?? []);
  heard.catch(() => undefined); // (a rejection is handled by whoever awaits it)

  // an error is an outcome recorded with an error code (the store's definition, see crawlTotals)
  const isError = error !== null;
  const processed: ProcessedPage = {
    event: {
      url: item.url, host: item.host, status: res.status, depth: item.depth, relevance, relevant: relevance === null ? null : relevant,
      priority: item.priority, error: error ?? undefined, bytes: res.body.length, seq: fetchSeq, newUrls,
      // every event of one shape (absent: undefined, which JSON leaves out): an optional property
      // spread in gave each combination its own hidden class, and the code reading events was
      // deoptimised and recompiled at each new one
      linksCut: linksCut ?? undefined,
      lang: lang ?? undefined,
      duplicateOf: duplicateOf ?? undefined,
    },
    relevant: relevant && duplicateOf === null,
    error: isError,
    newUrls,
    pruned,
    outlinks: analysis?.links ?? [],
    heard,
  };
  return { page: processed, answer };
}

/**
 * The strategy hears of a recorded page (as the resume replay feeds it); its own priority changes go
 * to the frontier. Both happen before this returns (the intake is sent: see the frontier's call
 * order); the promise settles with the intake's reply.
 */
export function strategyHears(deps: { strategy: Strategy; frontier: Frontier; timing?: StrategyTiming }, page: PageInfo, infos: LinkInfo[], ids: number[]): Promise<void> {
  try {
    const { strategy, timing } = deps;
    if (timing && (strategy.onLinksStored || strategy.takeUpdates)) return timedHears(deps, timing, page, infos, ids);
    strategy.onLinksStored?.(page, infos, ids);
    const updates = strategy.takeUpdates?.();
    if (updates?.length) return deps.frontier.intake({ updates }).then(() => undefined);
    return Promise.resolve();
  } catch (err) {
    return Promise.reject(err);
  }
}

/** strategyHears with each of the strategy's calls timed. */
function timedHears(deps: { strategy: Strategy; frontier: Frontier }, timing: StrategyTiming, page: PageInfo, infos: LinkInfo[], ids: number[]): Promise<void> {
  const { strategy } = deps;
  let t = performance.now();
  if (strategy.onLinksStored) {
    strategy.onLinksStored(page, infos, ids);
    const t1 = performance.now();
    timing.timed(strategy.name, 'onLinksStored', (t1 - t) / 1000);
    t = t1;
  }
  const updates = strategy.takeUpdates?.();
  if (strategy.takeUpdates) timing.timed(strategy.name, 'takeUpdates', (performance.now() - t) / 1000);
  if (updates?.length) return deps.frontier.intake({ updates }).then(() => undefined);
  return Promise.resolve();
}

/** A leased URL as the store records it. */
export function recordedUrl(item: Lease): RecordedUrl {
  return {
    id: item.id, url: item.url, host: { id: item.hostId, name: item.host }, depth: item.depth,
    priority: item.priority, life: item.life, hops: item.hops, parentId: item.parentId, anchor: item.anchor,
  };
}

/** The note of a page whose links were cut at `limits.max_links_per_page`. */
export function linksCutNote(cut: LinksCut): string {
  return `links cut: read the first ${cut.kept} of ${cut.found} (limits.max_links_per_page)`;
}

type RedirectResult = { error: string | null; note: string; added: number; link: RecordedLink | null };

async function followRedirect(deps: ProcessorDeps, item: Lease, location: string): Promise<RedirectResult> {
  const target = tryNormalizeUrl(location, deps.normalize);
  if (!target) return { error: 'E_INVALID_URL', note: `redirect to invalid URL ${location}`, added: 0, link: null };
  if (target === item.url) return { error: 'E_REDIRECT_LOOP', note: 'redirect to itself', added: 0, link: null };
  if (item.hops + 1 > deps.maxRedirects) return { error: 'E_REDIRECT_LIMIT', note: `redirect hop ${item.hops + 1} over the cap`, added: 0, link: null };
  const scope = deps.scope(target);
  if (!scope.ok) return { error: null, note: `redirect out of scope (${scope.reason}): ${target}`, added: 0, link: null };
  const hash = urlHash(target);
  const host = hostKey(target);
  const known = (await deps.frontier.known([{ hash, host }])).get(hash.toString('hex'));
  if (known) return { error: null, note: `redirect to known URL ${target}`, added: 0, link: { toId: known.id, anchor: '', url: target, hash, host, hostId: known.hostId } };
  const r = await deps.frontier.intake({
    adds: [{ hash, url: target, host, depth: item.depth, priority: item.priority, life: item.life, parentId: item.id, anchor: item.anchor, hops: item.hops + 1 }],
  });
  const id = r.ids[0];
  if (r.existing) return { error: null, note: `redirect to known URL ${target}`, added: 0, link: { toId: id, anchor: '', url: target, hash, host } };
  return { error: null, note: `redirect to ${target}`, added: 1, link: { toId: id, anchor: '', url: target, hash, host } };
}
