import type { Frontier, NewUrl, UrlChange } from '../frontier/frontier.js';
import { UrlState } from '../store/schema.js';
import type { LinkInfo, PageInfo, Strategy } from '../strategy/strategy.js';
import { inlinkContribution } from '../strategy/strategy.js';
import { hostKey } from '../url/host.js';
import { tryNormalizeUrl } from '../url/normalize.js';
import type { ScopeDecision } from '../url/scope.js';
import { urlHash } from '../url/url-hash.js';

/** A link as found on a page (absolute, not yet normalised). */
export interface RawLink {
  url: string;
  text: string;
}

export interface IntakeDeps {
  frontier: Frontier;
  strategy: Strategy;
  scope: (url: string) => ScopeDecision;
  maxDepth: number;
}

export interface IntakeResult {
  /** Frontier writes to apply (inside the page's transaction). */
  apply: () => { links: { toId: number; anchor: string }[]; added: number; pruned: number };
  /** Links dropped before the frontier, by reason. */
  dropped: Record<string, number>;
}

/**
 * The path of a page's links into the frontier (seed 002): normalise on add, deduplicate within
 * the page, check scope and depth, look up what is known, let the strategy decide priority and
 * life, then add new URLs (queued or pruned) and update known ones (backlink counters, priority,
 * revival). Lookups happen now; writes happen in `apply`, inside the page's transaction.
 */
export function intakeLinks(deps: IntakeDeps, page: PageInfo, raw: RawLink[]): IntakeResult {
  const dropped: Record<string, number> = {};
  const drop = (why: string) => (dropped[why] = (dropped[why] ?? 0) + 1);
  const byUrl = new Map<string, { url: string; anchor: string; hash: Buffer }>();
  const depth = page.depth + 1;
  for (const l of raw) {
    const url = tryNormalizeUrl(l.url);
    if (!url) {
      drop('invalid');
      continue;
    }
    const seen = byUrl.get(url);
    if (seen) {
      if (l.text && !seen.anchor.includes(l.text)) seen.anchor = seen.anchor ? `${seen.anchor} | ${l.text}` : l.text;
      continue;
    }
    if (url === page.url) {
      drop('self');
      continue;
    }
    const d = deps.scope(url);
    if (!d.ok) {
      drop(d.reason);
      continue;
    }
    byUrl.set(url, { url, anchor: l.text, hash: urlHash(url) });
  }
  const entries = [...byUrl.values()];
  const known = deps.frontier.lookup(entries.map((e) => e.hash));
  const contribution = inlinkContribution(page.relevance);
  const infos: LinkInfo[] = [];
  const kept: typeof entries = [];
  for (const e of entries) {
    const k = known.get(e.hash.toString('hex')) ?? null;
    if (!k && depth > deps.maxDepth) {
      drop('depth');
      continue;
    }
    kept.push(e);
    infos.push({
      url: e.url,
      host: hostKey(e.url),
      depth: k ? Math.min(k.depth, depth) : depth,
      anchor: e.anchor,
      known: k,
      inlinks: (k?.inlinks ?? 0) + 1,
      inlinkScore: (k?.inlinkScore ?? 0) + contribution,
    });
  }
  const decisions = deps.strategy.onPageFetched(page, infos);

  const apply = () => {
    const adds: NewUrl[] = [];
    const addIdx: number[] = [];
    const changes: UrlChange[] = [];
    const links: { toId: number; anchor: string }[] = new Array(kept.length);
    let pruned = 0;
    kept.forEach((e, i) => {
      const info = infos[i];
      const dec = decisions[i];
      const k = info.known;
      if (!k) {
        const d = dec ?? { priority: 0, life: 0, prune: true as const };
        if (d.prune) pruned++;
        adds.push({
          hash: e.hash, url: e.url, host: info.host, depth, priority: d.priority, life: d.life, parentId: page.id,
          anchor: e.anchor || null, inlinks: 1, inlinkScore: info.inlinkScore,
          state: d.prune ? UrlState.PRUNED : UrlState.QUEUED,
        });
        addIdx.push(i);
        return;
      }
      links[i] = { toId: k.id, anchor: e.anchor };
      const change: UrlChange = { id: k.id, hostId: k.hostId, inlinks: info.inlinks, inlinkScore: info.inlinkScore };
      if (dec && !dec.prune && (k.state === UrlState.QUEUED || k.state === UrlState.PRUNED)) {
        change.priority = dec.priority;
        change.life = dec.life;
        if (k.state === UrlState.PRUNED) change.state = UrlState.QUEUED;
      }
      changes.push(change);
    });
    const ids = deps.frontier.add(adds);
    ids.forEach((id, j) => (links[addIdx[j]] = { toId: id, anchor: kept[addIdx[j]].anchor }));
    deps.frontier.update(changes);
    return { links, added: adds.length, pruned };
  };
  return { apply, dropped };
}
