import { firstAtOrAfter, PieceIndex } from './robots-pieces.js';
import { canonicalPath, compilePattern, matchPattern, pathMask, type RobotsPattern } from './robots-pattern.js';
import { agentToken, type ParsedRobotsTxt, type RobotsRuleLine } from './robots-txt-parse.js';

interface CompiledRule {
  allow: boolean;
  line: number;
  pattern: RobotsPattern;
  /** {@link PieceIndex} ids of the pieces after the first (−1 for an empty one); null without a wildcard. */
  pieceIds: number[] | null;
}

/** Wildcard rules tried by scanning in one check before the path's piece occurrences are computed once. */
const SCANS_BEFORE_INDEX = 64;

/** {@link matchPattern} with every piece occurrence known: a binary search per piece, no scan. */
function matchByOccurrences(r: CompiledRule, s: string, occ: (number[] | undefined)[]): boolean {
  const { pieces, anchored } = r.pattern;
  const ids = r.pieceIds!;
  const last = pieces.length - 1;
  if (!s.startsWith(pieces[0]) || (anchored && !s.endsWith(pieces[last]))) return false;
  let pos = pieces[0].length;
  for (let k = 1; k < last; k++) {
    if (ids[k] < 0) continue;
    const at = firstAtOrAfter(occ[ids[k]], pos);
    if (at < 0) return false;
    pos = at + pieces[k].length;
  }
  if (anchored) return s.length - pieces[last].length >= pos;
  return ids[last] < 0 || firstAtOrAfter(occ[ids[last]], pos) >= 0;
}

/** A radix-tree node over the rules' literal prefixes (the text before their first `*`). */
interface Node {
  /** Edge label from the parent. */
  label: string;
  children: Map<number, Node>;
  /** Rules whose literal prefix ends here, highest priority first. */
  rules: CompiledRule[];
}

/** Highest priority first: the longer pattern, then Allow before Disallow (RFC 9309 §2.2.2). */
function byPriority(a: CompiledRule, b: CompiledRule): number {
  return b.pattern.length - a.pattern.length || Number(b.allow) - Number(a.allow) || a.line - b.line;
}

function insert(root: Node, key: string, rule: CompiledRule): void {
  let node = root;
  let i = 0;
  while (i < key.length) {
    const c = key.charCodeAt(i);
    const child = node.children.get(c);
    if (!child) {
      const leaf: Node = { label: key.slice(i), children: new Map(), rules: [rule] };
      node.children.set(c, leaf);
      return;
    }
    const label = child.label;
    let j = 0;
    while (j < label.length && i + j < key.length && label.charCodeAt(j) === key.charCodeAt(i + j)) j++;
    if (j < label.length) {
      // split the edge at j
      const mid: Node = { label: label.slice(0, j), children: new Map(), rules: [] };
      child.label = label.slice(j);
      mid.children.set(child.label.charCodeAt(0), child);
      node.children.set(c, mid);
      node = mid;
    } else node = child;
    i += j;
  }
  node.rules.push(rule);
}

function sortAll(node: Node): void {
  node.rules.sort(byPriority);
  for (const c of node.children.values()) sortAll(c);
}

/**
 * The rules that apply to one user agent (RFC 9309 §2.2.1–§2.2.2): the merged groups that name its
 * product token, else the merged "*" groups, else none. A group naming the agent without any rule
 * applies (everything allowed): it does not fall back to "*".
 *
 * Deciding a URL walks a radix tree of the rules' literal prefixes along the URL's canonical path
 * (O(path length)), so only rules whose prefix the path starts with are candidates; they are tried
 * longest first and the first that matches decides. Each try is linear (robots-pattern.ts); when
 * more than a few wildcard rules are candidates, the occurrences of all pieces in the path are found
 * in one pass (robots-pieces.ts) and each further try is a few binary searches, no scan.
 */
export class RobotsMatcher {
  private readonly root: Node = { label: '', children: new Map(), rules: [] };
  private readonly pieces = new PieceIndex();
  readonly ruleCount: number;
  readonly crawlDelay: number | null;

  /**
   * `scansBeforeIndex`: wildcard rules tried by scanning in one check before the piece occurrences
   * are computed (default 64; 0: always by occurrences, Infinity: never, for tests).
   */
  constructor(parsed: ParsedRobotsTxt, userAgent: string, private readonly scansBeforeIndex = SCANS_BEFORE_INDEX) {
    const token = agentToken(userAgent);
    let groups = token ? parsed.groups.filter((g) => g.agents.includes(token)) : [];
    if (groups.length === 0) groups = parsed.groups.filter((g) => g.agents.includes('*'));
    const rules: RobotsRuleLine[] = groups.flatMap((g) => g.rules);
    for (const r of rules) {
      const pattern = compilePattern(r.pattern);
      const pieceIds = pattern.pieces.length > 1 ? pattern.pieces.map((p, k) => (k > 0 && p !== '' ? this.pieces.add(p) : -1)) : null;
      insert(this.root, pattern.pieces[0], { allow: r.allow, line: r.line, pattern, pieceIds });
    }
    sortAll(this.root);
    this.ruleCount = rules.length;
    this.crawlDelay = groups.find((g) => g.crawlDelay !== null)?.crawlDelay ?? null;
  }

  /** The rule that decides `path` (a URL's path and query, in any encoding), or null when none matches. */
  decide(path: string): { allow: boolean; line: number } | null {
    const s = canonicalPath(path);
    const mask = this.ruleCount > 8 ? pathMask(s) : null;
    let best: CompiledRule | null = null;
    let node: Node | undefined = this.root;
    let i = 0;
    let scans = 0;
    let occ: (number[] | undefined)[] | null = null;
    const matches = (r: CompiledRule): boolean => {
      if (!r.pieceIds) return matchPattern(r.pattern, s, null);
      if (occ) return matchByOccurrences(r, s, occ);
      // many wildcard rules to try: find every piece's occurrences in one pass, then only look them up
      if (++scans > this.scansBeforeIndex) occ = this.pieces.scan(s);
      return occ ? matchByOccurrences(r, s, occ) : matchPattern(r.pattern, s, mask);
    };
    while (node) {
      for (const r of node.rules) {
        if (best && (r.pattern.length < best.pattern.length || (r.pattern.length === best.pattern.length && (best.allow || !r.allow)))) break;
        if (matches(r)) {
          best = r;
          break;
        }
      }
      if (i >= s.length) break;
      const child: Node | undefined = node.children.get(s.charCodeAt(i));
      if (!child || !s.startsWith(child.label, i)) break;
      i += child.label.length;
      node = child;
    }
    return best ? { allow: best.allow, line: best.line } : null;
  }
}
