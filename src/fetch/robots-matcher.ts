import { canonicalPath, compilePattern, matchPattern, pathMask, type RobotsPattern } from './robots-pattern.js';
import { agentToken, type ParsedRobotsTxt, type RobotsRuleLine } from './robots-txt-parse.js';

interface CompiledRule {
  allow: boolean;
  line: number;
  pattern: RobotsPattern;
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
 * longest first and the first that matches decides. Each try is linear (robots-pattern.ts).
 */
export class RobotsMatcher {
  private readonly root: Node = { label: '', children: new Map(), rules: [] };
  readonly ruleCount: number;
  readonly crawlDelay: number | null;

  constructor(parsed: ParsedRobotsTxt, userAgent: string) {
    const token = agentToken(userAgent);
    let groups = token ? parsed.groups.filter((g) => g.agents.includes(token)) : [];
    if (groups.length === 0) groups = parsed.groups.filter((g) => g.agents.includes('*'));
    const rules: RobotsRuleLine[] = groups.flatMap((g) => g.rules);
    for (const r of rules) {
      const pattern = compilePattern(r.pattern);
      insert(this.root, pattern.pieces[0], { allow: r.allow, line: r.line, pattern });
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
    while (node) {
      for (const r of node.rules) {
        if (best && (r.pattern.length < best.pattern.length || (r.pattern.length === best.pattern.length && (best.allow || !r.allow)))) break;
        if (matchPattern(r.pattern, s, mask)) {
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
