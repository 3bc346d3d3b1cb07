/**
 * Folds Chinese text to one script (simplified) so that a keyword in either script matches text in
 * either script: 煙草 / 菸草 / 烟草 all fold to 烟草, 捲煙 to 卷烟.
 *
 * Converting whole pages with opencc-js's phrase-aware converter runs at ~900–1,600 pages/s for 10 KB
 * of text here, which alone would eat the scorer's budget (≥ 2,000 pages/s). So this folds character by
 * character with a 64 K-entry table built once from opencc-js's own dictionaries: Taiwan and Hong Kong
 * variant characters → OpenCC standard traditional → simplified (first candidate), iterated to a fixed
 * point so that folding is idempotent. Character-level folding ignores phrase context (乾隆 → 干隆), which
 * is harmless for matching because keywords and text are folded the same way. Only BMP characters
 * are mapped; everything else (Latin, punctuation, rare supplementary ideographs) passes through.
 */
import { createRequire } from 'node:module';

/**
 * opencc-js (2.3 MB of dictionaries) is loaded on the first text with a character at U+3400 or
 * above, not when this module is imported: most crawls never see one, and compiling it cost every
 * crawl's start ~50 ms. Its CommonJS build, so the load can be synchronous (and the bundle leaves it in
 * node_modules).
 */
type OpenccLocale = { from: Record<string, readonly (readonly DictLike[])[] | undefined>; to: Record<string, readonly (readonly DictLike[])[] | undefined> };
function opencc(): { Locale: OpenccLocale } {
  return createRequire(import.meta.url)('opencc-js') as { Locale: OpenccLocale };
}

type DictLike = string | readonly (readonly [string, string])[];

function charEntries(dict: DictLike, into: Map<number, number>): void {
  const pairs: [string, string][] = typeof dict === 'string'
    ? dict.split('|').map((e) => {
      const sp = e.indexOf(' ');
      return [e.slice(0, sp), e.slice(sp + 1)] as [string, string];
    })
    : dict.map(([a, b]) => [a, b] as [string, string]);
  for (const [from, toAll] of pairs) {
    const to = toAll.split(' ')[0] ?? '';
    if (from.length !== 1 || to.length !== 1 || from === to) continue;
    if (!into.has(from.charCodeAt(0))) into.set(from.charCodeAt(0), to.charCodeAt(0));
  }
}

function buildTable(): Uint16Array {
  const { Locale } = opencc();
  const variants = new Map<number, number>();
  for (const region of ['tw', 'hk'] as const) {
    for (const group of Locale.from[region] ?? []) for (const dict of group) charEntries(dict, variants);
  }
  const toSimplified = new Map<number, number>();
  for (const group of Locale.to.cn ?? []) for (const dict of group) charEntries(dict, toSimplified);

  const step = (c: number): number => {
    const v = variants.get(c) ?? c;
    return toSimplified.get(v) ?? v;
  };
  const table = new Uint16Array(65536);
  const keys = new Set<number>([...variants.keys(), ...toSimplified.keys()]);
  for (const c of keys) {
    let cur = c;
    for (let i = 0; i < 8; i++) {
      const next = step(cur);
      if (next === cur) break;
      cur = next;
    }
    if (cur !== c) table[c] = cur;
  }
  return table;
}

let TABLE: Uint16Array | null = null;
const UTF16 = new TextDecoder('utf-16le', { ignoreBOM: true });

/** The fold table (built on first use, ~30 ms): table[c] is the folded code unit, 0 if c is unchanged. */
export function foldTable(): Uint16Array {
  return (TABLE ??= buildTable());
}

/** Folds traditional / variant Chinese characters to simplified; returns `text` itself if nothing changes. */
export function foldChinese(text: string): string {
  const n = text.length;
  let i = 0;
  let table = TABLE;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x3400) {
      // (the table, and opencc-js with it, only once such a character comes)
      table ??= foldTable();
      if (table[c] !== 0) break;
    }
  }
  if (i === n || !table) return text;
  const buf = new Uint16Array(n);
  for (let j = 0; j < i; j++) buf[j] = text.charCodeAt(j);
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    const m = c >= 0x3400 ? table[c] : 0;
    buf[i] = m !== 0 ? m : c;
  }
  return UTF16.decode(buf);
}
