import type { Frontier, IntakeResult as FrontierAnswer, KnownUrl, NewUrl, UrlChange } from '../frontier/frontier.js';
import type { RecordedLink } from '../store/store.js';
import { UrlState } from '../frontier/url-state.js';
import type { LinkInfo, PageInfo, Strategy } from '../strategy/strategy.js';
import { inlinkContribution } from '../strategy/strategy.js';
import type { AnalyzedLink } from './page-analysis.js';
import type { StrategyTiming } from './strategy-timing.js';

export interface IntakeDeps {
  frontier: Frontier;
  strategy: Strategy;
  maxDepth: number;
  /** Hears how long the strategy's calls took (monitoring); absent: they are not timed. */
  timing?: StrategyTiming;
}

export interface IntakeResult {
  /** One per kept link, in order, with what a segment needs to record its target. */
  links: RecordedLink[];
  /** What the strategy was told of each kept link (for Strategy.onLinksStored, after the record). */
  infos: LinkInfo[];
  /** Pruned URLs queued again (a better parent gave them life). */
  revived: number;
  /** New URLs left out because they are too deep. */
  tooDeep: number;
  /**
   * The frontier's answer. With ids reserved ahead (Frontier.reserveIds) `links` hold them before
   * it comes; it then says which of the new URLs another client added meanwhile (`relinked`: the
   * link's reserved id and the URL's real one, to correct in the record).
   */
  answer: Promise<IntakeAnswer>;
}

export interface IntakeAnswer {
  /** URLs seen for the first time (queued or pruned). */
  added: number;
  pruned: number;
  relinked: { from: number; to: number }[];
}

/**
 * A link's URL hash as a Buffer: the hash itself when it is one already (unpackAnalysis makes them
 * Buffers), else a Buffer view on its bytes (no copy either way). Called for every link of every
 * page on the crawl's thread, twice: a view made each time was two objects a link for nothing.
 */
export function linkHash(l: AnalyzedLink): Buffer {
  return Buffer.isBuffer(l.hash) ? l.hash : Buffer.from(l.hash.buffer, l.hash.byteOffset, l.hash.byteLength);
}

/**
 * The path of a page's links into the frontier (seed 002), after page analysis normalised,
 * scoped and deduplicated them: look up what is known, let the strategy decide priority and life,
 * add new URLs (queued, or pruned when their life is 0) and update known ones (backlink counters,
 * priority, revival of pruned URLs), in one frontier intake. The caller records the links and then
 * tells the strategy (Strategy.onLinksStored with `infos` and the links' ids). A frontier that
 * reserves ids (a shared one) gives the new URLs' ids at once: the caller need not wait for the
 * intake's answer before recording (see IntakeResult.answer).
 */
export async function intakeLinks(
  deps: IntakeDeps, page: PageInfo, found: AnalyzedLink[], lookup?: Promise<Map<string, KnownUrl>> | null, sent?: () => void,
): Promise<IntakeResult> {
  const depth = page.depth + 1;
  const hashes = found.map(linkHash);
  const known = await (lookup ?? deps.frontier.known(found.map((l, i) => ({ hash: hashes[i], host: l.host }))));
  const infos: LinkInfo[] = [];
  const kept: number[] = [];
  let tooDeep = 0;
  found.forEach((l, i) => {
    const k = known.size === 0 ? null : (known.get(hashes[i].toString('hex')) ?? null);
    if (!k && depth > deps.maxDepth) {
      tooDeep++;
      return;
    }
    kept.push(i);
    infos.push({
      url: l.url, host: l.host, depth: k ? Math.min(k.depth, depth) : depth, anchor: l.anchor, known: k,
      inlinks: (k?.inlinks ?? 0) + 1, inlinkScore: Math.max(k?.inlinkScore ?? 0, inlinkContribution(page.relevance, l)),
      anchorScore: l.anchorScore, contextScore: l.contextScore, location: Number.isNaN(l.location) ? undefined : l.location,
    });
  });
  const t0 = deps.timing ? performance.now() : 0;
  const decisions = deps.strategy.onPageFetched(page, infos);
  if (deps.timing) deps.timing.timed(deps.strategy.name, 'onPageFetched', (performance.now() - t0) / 1000);

  const adds: NewUrl[] = [];
  const addAt: number[] = [];
  const changes: UrlChange[] = [];
  const links: RecordedLink[] = new Array(infos.length);
  let pruned = 0;
  let revived = 0;
  infos.forEach((info, j) => {
    const dec = decisions[j];
    const k = info.known;
    const l = found[kept[j]];
    if (!k) {
      const d = dec ?? { priority: 0, life: 0, prune: true as const };
      if (d.prune) pruned++;
      adds.push({
        hash: hashes[kept[j]], url: info.url, host: info.host, depth, priority: d.priority, life: d.life, parentId: page.id,
        anchor: l.anchor || null, inlinks: 1, inlinkScore: info.inlinkScore, state: d.prune ? UrlState.PRUNED : UrlState.QUEUED,
      });
      addAt.push(j);
      return;
    }
    links[j] = { toId: k.id, anchor: l.anchor, url: l.url, hash: hashes[kept[j]], host: l.host, hostId: k.hostId };
    // backlinks only matter while a URL may still be fetched
    if (k.state !== UrlState.QUEUED && k.state !== UrlState.PRUNED) return;
    const change: UrlChange = { id: k.id, hostId: k.hostId, hash: hashes[kept[j]], inlinks: info.inlinks, inlinkScore: info.inlinkScore };
    if (dec && !dec.prune) {
      change.priority = dec.priority;
      change.life = dec.life;
      if (k.state === UrlState.PRUNED) {
        change.state = UrlState.QUEUED;
        revived++;
      }
    }
    changes.push(change);
  });
  const reserving = adds.length ? deps.frontier.reserveIds?.(adds.length) : undefined;
  const reserved = reserving === undefined ? undefined : Array.isArray(reserving) ? reserving : await reserving;
  const sending = deps.frontier.intake({ adds, changes, ...(reserved ? { reserved } : {}) });
  sent?.();
  const linkOf = (n: number, id: number): RecordedLink => {
    const a = adds[n];
    return { toId: id, anchor: infos[addAt[n]].anchor, url: a.url, hash: a.hash, host: a.host };
  };
  const answerOf = (r: FrontierAnswer): IntakeAnswer => {
    // URLs another page (or worker) added meanwhile were not added twice: not new, not pruned by this page
    let prunedNow = pruned;
    for (const n of r.existingAt) if (adds[n].state === UrlState.PRUNED) prunedNow--;
    const relinked = reserved ? r.ids.flatMap((id, n) => (id !== reserved[n] ? [{ from: reserved[n], to: id }] : [])) : [];
    return { added: adds.length - r.existing, pruned: prunedNow, relinked };
  };
  if (reserved) {
    reserved.forEach((id, n) => (links[addAt[n]] = linkOf(n, id)));
    return { links, infos, revived, tooDeep, answer: sending.then(answerOf) };
  }
  const r = await sending;
  r.ids.forEach((id, n) => (links[addAt[n]] = linkOf(n, id)));
  return { links, infos, revived, tooDeep, answer: Promise.resolve(answerOf(r)) };
}
