import type Database from 'better-sqlite3';
import { lazyScoreText, normalizeOptions } from '../crawl/crawl-settings.js';
import { FEEDBACK_META_KEY, parseFeedback } from '../crawl/relevance-feedback.js';
import { TopicrawlError } from '../errors.js';
import { UrlState, urlStateName } from '../frontier/url-state.js';
import { fetchHistory, fetchLinkedHistory, queuedUrls, seedUrls } from '../store/crawl-history.js';
import { anchorsTo, lastLinkerDepth, maxPriority, readMeta, urlBrief, urlByHash, type StoredUrl } from '../store/url-report.js';
import { backlinkImportance, createImportance } from '../strategy/best-first.js';
import { createStrategy } from '../strategy/registry.js';
import type { HistoryPage, LinkedHistoryPage, Strategy, StrategyConfig } from '../strategy/strategy.js';
import { buildConfig, type Config } from '../topic/config.js';
import { normalizeUrl } from '../url/normalize.js';
import { urlHash } from '../url/url-hash.js';

/**
 * Why a URL of a crawl file has its priority, for `topicrawl explain`: what the store holds about
 * it (state, depth, life, backlinks, parent, anchors), best-first's I(p) = x·IB + y·IL + z·ID
 * recomputed from the stored configuration, and the per-URL figures of the crawl's strategy
 * (Strategy.explain) after replaying the store's history into a fresh instance of it, exactly as a
 * resumed crawl does. Read-only; nothing here writes to the database or the console. The database
 * is a crawl file or the merged view of a crawl's segments (store/segments.ts); every read goes
 * through store/ (url-report.ts, crawl-history.ts).
 */

/** I(p) recomputed from the stored configuration, term by term. */
export interface ImportanceParts {
  x: number;
  y: number;
  z: number;
  /** IB = min(1, s), s = inlink_score: the best backlink evidence */
  ib: number;
  /** IL, the Location Metric of the URL */
  il: number;
  /** ID = 1 / (1 + depth) */
  id: number;
  /** the depth ID used: the stored depth, or one less if the last parent that updated the URL was shallower */
  idDepth: number;
  /** x·IB + y·IL + z·ID as best-first computes it */
  sum: number;
  /** the directory yield factor in force (best-first family; 1 for other strategies or when unknown) */
  factor: number;
  /** whether the stored priority equals `sum` × `factor` (within 1e-9) */
  matchesStored: boolean;
  /** why they differ, when they do */
  note: string | null;
}

/** The strategy of the crawl, rebuilt from the stored configuration and fed the stored history. */
export interface StrategyFigures {
  name: string;
  /** false when the strategy has no `explain` (then nothing was replayed) */
  hasExplain: boolean;
  /** fetched pages replayed into the strategy before asking it */
  replayedPages: number;
  /** Strategy.explain(id), or null (no explain, or nothing known about this URL) */
  figures: Record<string, number | string> | null;
  /** set when the strategy could not be built (e.g. a name this build does not know) */
  error: string | null;
}

/** Everything `topicrawl explain` prints about one URL. */
export interface PriorityExplanation {
  /** the URL as given, and normalised the way the crawl does */
  input: string;
  url: string;
  id: number;
  state: string;
  depth: number;
  priority: number;
  fetchPriority: number | null;
  fetchSeq: number | null;
  status: number | null;
  relevance: number | null;
  relevant: boolean | null;
  /** the error code recorded with its outcome (E_HTTP, E_CONNECT, E_ROBOTS, …), if any */
  error: string | null;
  /** the note recorded with it (the error's message, a redirect's target, duplicate content, …), if any */
  note: string | null;
  life: number;
  maxLife: number;
  inlinks: number;
  inlinkScore: number;
  /** redirect hops that led here (its priority was inherited from the redirecting URL) */
  hops: number;
  parent: { id: number; url: string; relevance: number | null; relevant: boolean | null } | null;
  /** the links to this URL (links table), in the order their pages were fetched */
  anchors: { fromId: number; fromUrl: string; anchor: string }[];
  importance: ImportanceParts;
  strategy: StrategyFigures;
}

/** A state's name as explain prints it: queued, in-flight, fetched, … */
const stateName = (s: UrlState): string => urlStateName(s)?.toLowerCase().replace('_', '-') ?? String(s);

type UrlRow = StoredUrl;

/** The configuration a crawl file was last run with (meta key `config`), rebuilt and frozen. */
export function storedConfig(db: Database.Database): Config {
  const value = readMeta(db, 'config');
  if (value === null) throw new TopicrawlError('E_STORE', 'the crawl file holds no configuration (meta key "config")');
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch (err) {
    throw new TopicrawlError('E_STORE', 'the configuration stored in the crawl file is not valid JSON', {}, { cause: err });
  }
  try {
    return buildConfig(raw as Config, {}, 'stored configuration');
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new TopicrawlError('E_STORE', `the configuration stored in the crawl file is invalid: ${msg}`, {}, { cause: err });
  }
}

/** A URL as the crawl of `cfg` stores it: normalised with the topic's URL rules. Throws E_INVALID_URL. */
export function crawlUrl(cfg: Config, input: string): string {
  return normalizeUrl(input.trim(), normalizeOptions(cfg));
}

/**
 * Explains the priority of `input` (normalised with the crawl's URL rules) in an open crawl file.
 * Returns null when the crawl does not know the URL. Throws E_INVALID_URL for a URL that cannot be
 * normalised and E_STORE when the file holds no usable configuration.
 */
export function explainPriority(db: Database.Database, input: string): PriorityExplanation | null {
  const cfg = storedConfig(db);
  const url = crawlUrl(cfg, input);
  const row = urlByHash(db, urlHash(url));
  if (!row) return null;

  const parentRow = row.parent_id === null ? undefined : urlBrief(db, row.parent_id);
  const anchors = anchorsTo(db, row.id);
  const strategyConfig: StrategyConfig = { ...cfg.strategy, location: cfg.location };
  const figures = strategyFigures(db, row.id, cfg.strategy.name, strategyConfig, lazyScoreText(cfg, parseFeedback(readMeta(db, FEEDBACK_META_KEY))));
  return {
    input,
    url: row.url,
    id: row.id,
    state: stateName(row.state),
    depth: row.depth,
    priority: row.priority,
    fetchPriority: row.fetch_priority,
    fetchSeq: row.fetch_seq,
    status: row.status,
    relevance: row.relevance,
    relevant: row.relevant === null ? null : row.relevant === 1,
    error: row.error,
    note: row.note,
    life: row.life,
    maxLife: cfg.strategy.max_life,
    inlinks: row.inlinks,
    inlinkScore: row.inlink_score,
    hops: row.hops,
    parent: parentRow
      ? { id: parentRow.id, url: parentRow.url, relevance: parentRow.relevance, relevant: parentRow.relevant === null ? null : parentRow.relevant === 1 }
      : null,
    anchors,
    importance: importanceOf(db, row, strategyConfig, cfg.strategy.name, figures),
    strategy: figures,
  };
}

/**
 * The depth the crawl's last decision about the URL used for ID: intake scores a known URL at
 * min(its stored depth, the linking page's depth + 1), and only while the URL is still queued or
 * pruned, i.e. for pages fetched before it.
 */
function decisionDepth(db: Database.Database, row: UrlRow): number {
  const last = lastLinkerDepth(db, row.id, row.fetch_seq);
  return last !== undefined && row.hops === 0 ? Math.min(row.depth, last + 1) : row.depth;
}

function importanceOf(db: Database.Database, row: UrlRow, cfg: StrategyConfig, strategyName: string, figures: StrategyFigures): ImportanceParts {
  const { score, il: locationMetric } = createImportance(cfg);
  const idDepth = decisionDepth(db, row);
  const s = row.inlink_score;
  const ib = backlinkImportance(s);
  const il = locationMetric(row.url);
  const id = 1 / (1 + idDepth);
  const sum = score(row.url, idDepth, s);
  // best-first and best-first-fish multiply I(p) by the yield factor of the URL's directory
  const f = figures.figures?.directory_factor;
  const factor = typeof f === 'number' && /^best-first/.test(strategyName) ? f : 1;
  const matchesStored = Math.abs(sum * factor - row.priority) <= 1e-9 * Math.max(1, row.priority);
  let note: string | null = null;
  if (Math.abs(cfg.x * ib + cfg.y * il + cfg.z * id - sum) > 1e-9) {
    note = 'the parts do not add up to best-first\'s score: its formula changed; this command needs updating';
  } else if (!matchesStored) {
    if (row.hops > 0) note = `reached by a redirect (${row.hops} hop${row.hops > 1 ? 's' : ''}): it inherited the priority of the redirecting URL`;
    else if (row.state === UrlState.PRUNED) note = 'pruned: its priority is that of the last decision that did not prune it';
    else if (factor !== 1 && row.state !== UrlState.QUEUED) note = 'its directory\'s yield factor has moved since it was handed out';
    else note = `strategy ${strategyName} does not set the priority to I(p) (or not only)`;
  }
  return { x: cfg.x, y: cfg.y, z: cfg.z, ib, il, id, idDepth, sum, factor, matchesStored, note };
}

/** Builds the crawl's strategy, replays the store into it as a resumed crawl does, and asks it. */
function strategyFigures(db: Database.Database, id: number, name: string, cfg: StrategyConfig, scoreText: (text: string) => number): StrategyFigures {
  let strategy: Strategy;
  try {
    strategy = createStrategy(name, cfg);
  } catch (err) {
    return { name, hasExplain: false, replayedPages: 0, figures: null, error: `cannot be rebuilt: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!strategy.explain) return { name, hasExplain: false, replayedPages: 0, figures: null, error: null };
  let replayedPages = 0;
  try {
    const highest = maxPriority(db);
    if (highest !== null) {
      strategy.resume?.({
        maxPriority: highest,
        seeds: () => seedUrls(db),
        queued: () => queuedUrls(db),
        history: function* (): Iterable<HistoryPage> {
          replayedPages = 0;
          for (const page of fetchHistory(db)) {
            replayedPages++;
            yield page;
          }
        },
        linkedHistory: function* (): Iterable<LinkedHistoryPage> {
          replayedPages = 0;
          for (const page of fetchLinkedHistory(db)) {
            replayedPages++;
            yield page;
          }
        },
        scoreText,
      });
    }
    const figures = strategy.explain(id);
    return { name, hasExplain: true, replayedPages, figures: figures ? { ...figures } : null, error: null };
  } catch (err) {
    // the rest of the explanation stands; say what went wrong with the replay
    const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return { name, hasExplain: true, replayedPages, figures: null, error: `replaying the crawl into it failed: ${msg}` };
  }
}
