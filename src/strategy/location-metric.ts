/**
 * The Location Metric IL(p) (seeds 001/003): a URL scored from its string alone.
 *
 *   raw = Σ weight(t) for each topic token t found in the host or path (each token counted once;
 *         a token matches a URL word equal to it or containing it: "tobacco" matches "tobacco-info",
 *         "yancao" matches "zgyancao")
 *       + weight(tld)                       (e.g. com 0.2 above net 0.1)
 *       − segment_penalty × (path segments) (fewer segments rank higher; "/" has 0)
 *   IL  = 1 / (1 + e^(−raw))                (in (0,1); 0.5 when nothing applies)
 */
import { MemoMap } from '../memo-map.js';
import { urlWords } from '../url/url-words.js';

export interface LocationWeights {
  tokens: Readonly<Record<string, number>>;
  tld: Readonly<Record<string, number>>;
  segment_penalty: number;
}

/** IL of URLs, remembered: links repeat (navigation on every page). */
export function createLocationMetric(w: LocationWeights): (url: string) => number {
  const compute = locationScorer(w);
  // bounded, in two generations: the navigation's URLs survive a turnover
  const memo = new MemoMap<string, number>(65_536);
  return (url: string) => {
    const hit = memo.get(url);
    if (hit !== undefined) return hit;
    const v = compute(url);
    memo.set(url, v);
    return v;
  };
}

/**
 * IL of a URL, computed each time (page analysis computes it once per URL in its link memo and
 * sends it with the link: LinkInfo.location).
 */
export function locationScorer(w: LocationWeights): (url: string) => number {
  const tokens = Object.entries(w.tokens).map(([t, v]) => [t.toLowerCase(), v] as const);
  const tld = new Map(Object.entries(w.tld).map(([t, v]) => [t.toLowerCase().replace(/^\./, ''), v]));
  return (url: string): number => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return 0;
    }
    const host = u.hostname.toLowerCase();
    const words = urlWords(u, true);
    let raw = 0;
    for (const [t, v] of tokens) {
      for (const word of words) {
        if (word === t || word.includes(t)) {
          raw += v;
          break;
        }
      }
    }
    const lastDot = host.lastIndexOf('.');
    raw += tld.get(lastDot >= 0 ? host.slice(lastDot + 1) : host) ?? 0;
    const segments = u.pathname.split('/').filter(Boolean).length;
    raw -= w.segment_penalty * segments;
    return 1 / (1 + Math.exp(-raw));
  };
}
