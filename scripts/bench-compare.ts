/**
 * The arithmetic of scripts/bench-versus.ts, apart from its processes: finding a benchmark's JSON in
 * what it printed, reading numeric fields by dotted path, medians, and the comparison table.
 */

/** Fields compared when `--fields` is not given, by benchmark script file name. */
export const DEFAULT_FIELDS: Record<string, string[]> = {
  'bench-crawl.ts': ['end_to_end_pages_per_s', 'cpu_ms_per_page', 'peak_rss_mb'],
  'bench-frontier.ts': ['enqueue.enqueues_per_s', 'lookup.hashes_per_s', 'drain.dequeues_per_s', 'reopen.seconds', 'peak_rss_mb.max_rss'],
};

/** Fields where a smaller figure is the better one (by the last part of the path, or a member of {@link COSTS}); the rest: larger is better. */
const LOWER_IS_BETTER = /(^|\.)(seconds|cpu_ms_per_page|cpu_s|wall_s|peak_rss_mb|max_rss|sampled|rss_mb|[a-z_]*_mb|sqlite_calls|sqlite_calls_per_page|sqlite_us_per_page|main_thread_busy|first_request_ms)$/;

/** Objects whose every member is a cost (bench-crawl.ts's CPU by thread, SQLite by statement, a page's ms at analysis). */
const COSTS = /(^|\.)(cpu_ms_per_page_by_thread|sqlite_us_per_page_by_statement|sqlite_calls_per_page_by_statement|analysis_ms)\./;

export function lowerIsBetter(field: string): boolean {
  return LOWER_IS_BETTER.test(field) || COSTS.test(field);
}

/**
 * The JSON object a benchmark printed on stdout: the whole output if it parses, else the last line
 * that opens an object at column 0 through the end (progress lines may come first). Throws when
 * there is none.
 */
export function extractJson(stdout: string): Record<string, unknown> {
  const text = stdout.trim();
  const tryParse = (s: string): Record<string, unknown> | null => {
    try {
      const v: unknown = JSON.parse(s);
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  };
  const whole = tryParse(text);
  if (whole) return whole;
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i].startsWith('{')) continue;
    const v = tryParse(lines.slice(i).join('\n'));
    if (v) return v;
  }
  throw new Error(text ? `no JSON object in its output (last line: ${JSON.stringify(lines[lines.length - 1].slice(0, 200))})` : 'it printed nothing on stdout');
}

/** The number at a dotted path (`drain.dequeues_per_s`); throws when it is missing or not a finite number. */
export function numberAt(obj: Record<string, unknown>, path: string): number {
  let v: unknown = obj;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object' || !(key in v)) throw new Error(`no field ${path} in its JSON`);
    v = (v as Record<string, unknown>)[key];
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`field ${path} is ${JSON.stringify(v)}, not a number`);
  return v;
}

/** Median (mean of the two middle values for an even count). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('median of nothing');
  const s = [...xs].sort((x, y) => x - y);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Splits `--base-args` into arguments: whitespace separates, single or double quotes group. */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|([^\s"']+)/g;
  let cur: string | null = null;
  let last = -1;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    const piece = m[1] ?? m[2] ?? m[3];
    // pieces with no space between them are one argument (--x="a b")
    if (cur !== null && m.index === last) cur += piece;
    else {
      if (cur !== null) out.push(cur);
      cur = piece;
    }
    last = re.lastIndex;
  }
  if (cur !== null) out.push(cur);
  return out;
}

export interface FieldComparison {
  field: string;
  base: number[];
  next: number[];
  baseMedian: number;
  newMedian: number;
  /** new / base of the medians (NaN when the base median is 0). */
  ratio: number;
}

/** Per field, the rounds' figures of each side, their medians and the ratio new/base. */
export function compare(fields: readonly string[], base: readonly Record<string, unknown>[], next: readonly Record<string, unknown>[]): FieldComparison[] {
  return fields.map((field) => {
    const b = base.map((o) => numberAt(o, field));
    const n = next.map((o) => numberAt(o, field));
    const baseMedian = median(b);
    const newMedian = median(n);
    return { field, base: b, next: n, baseMedian, newMedian, ratio: baseMedian === 0 ? NaN : newMedian / baseMedian };
  });
}

const fmt = (x: number) => (Number.isInteger(x) ? String(x) : String(+x.toPrecision(4)));

/** The comparison as a Markdown table: median base, median new, ratio new/base, and each round's figures. */
export function renderTable(rows: readonly FieldComparison[]): string {
  const head = ['field', 'median base', 'median new', 'new/base', 'better', 'base rounds', 'new rounds'];
  const body = rows.map((r) => [
    r.field, fmt(r.baseMedian), fmt(r.newMedian), Number.isNaN(r.ratio) ? 'n/a' : r.ratio.toFixed(3),
    lowerIsBetter(r.field) ? 'lower' : 'higher', r.base.map(fmt).join(' '), r.next.map(fmt).join(' '),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}
