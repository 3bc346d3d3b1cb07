/**
 * A parser of the Prometheus text exposition format (version 0.0.4), written from its specification
 * for the tests (independent of prom-client, which writes it): `# HELP name text` (escapes `\\`,
 * `\n`), `# TYPE name counter|gauge|histogram|summary|untyped`, and sample lines
 * `name{label="value",…} number [timestamp]` (label values escape `\\`, `\"`, `\n`). It is strict:
 * anything else, a family's samples apart, a sample of an undeclared family, HELP/TYPE twice or out
 * of order, are problems.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  samples: Sample[];
}

export interface Scrape {
  status: number;
  contentType: string | null;
  text: string;
  families: Map<string, Family>;
  problems: string[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const SUFFIXES: Record<Family['type'], string[]> = { counter: [''], gauge: [''], untyped: [''], histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] };

function parseNumber(s: string): number | null {
  if (s === '+Inf' || s === 'Inf') return Infinity;
  if (s === '-Inf') return -Infinity;
  if (s === 'NaN') return NaN;
  return /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s) ? Number(s) : null;
}

/** One sample line, or the reason it is not one. */
function parseSample(line: string): Sample | string {
  const n = NAME.exec(line);
  if (!n) return 'no metric name';
  let i = n[0].length;
  const labels: Record<string, string> = {};
  if (line[i] === '{') {
    i++;
    while (line[i] !== '}') {
      const l = LABEL.exec(line.slice(i));
      if (!l) return 'bad label name';
      i += l[0].length;
      if (line.slice(i, i + 2) !== '="') return 'label without ="';
      i += 2;
      let v = '';
      for (;;) {
        const c = line[i++];
        if (c === undefined) return 'unterminated label value';
        if (c === '"') break;
        if (c === '\\') {
          const e = line[i++];
          if (e === 'n') v += '\n';
          else if (e === '\\' || e === '"') v += e;
          else return `bad escape \\${e}`;
        } else v += c;
      }
      if (l[0] in labels) return `label ${l[0]} twice`;
      labels[l[0]] = v;
      if (line[i] === ',') i++;
      else if (line[i] !== '}') return 'labels not separated by ,';
    }
    i++;
  }
  if (line[i] !== ' ') return 'no space before the value';
  const [value, ts, ...rest] = line.slice(i + 1).split(' ');
  const v = parseNumber(value);
  if (v === null) return `value ${value} is not a number`;
  if (rest.length || (ts !== undefined && !/^-?\d+$/.test(ts))) return 'bad timestamp or extra text';
  return { name: n[0], labels, value: v };
}

/** Parses an exposition text: its families, and every problem found (none: []). */
export function parseExposition(text: string): { families: Map<string, Family>; problems: string[] } {
  const families = new Map<string, Family>();
  const problems: string[] = [];
  const helped = new Map<string, string>();
  let current: Family | null = null;
  const done = new Set<string>();
  if (!text.endsWith('\n')) problems.push('the text does not end with a newline');
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let m = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (m) {
      if (helped.has(m[1]) || families.has(m[1])) problems.push(`second HELP for ${m[1]}`);
      helped.set(m[1], m[2].replace(/\\(n|\\)/g, (_, e: string) => (e === 'n' ? '\n' : '\\')));
      if (current) done.add(current.name);
      current = null;
      continue;
    }
    m = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (m) {
      if (!helped.has(m[1])) problems.push(`TYPE before HELP for ${m[1]}`);
      if (families.has(m[1])) problems.push(`second TYPE for ${m[1]}`);
      current = { name: m[1], help: helped.get(m[1]) ?? '', type: m[2] as Family['type'], samples: [] };
      families.set(m[1], current);
      continue;
    }
    if (line.startsWith('#')) {
      problems.push(`unexpected comment line: ${line}`);
      continue;
    }
    const s = parseSample(line);
    if (typeof s === 'string') {
      problems.push(`${s}: ${line}`);
      continue;
    }
    if (!current || done.has(current.name) || !SUFFIXES[current.type].some((x) => s.name === current!.name + x)) {
      problems.push(`sample outside its family's block: ${line}`);
      continue;
    }
    current.samples.push(s);
  }
  return { families, problems };
}

export async function scrapeMetrics(baseUrl: string): Promise<Scrape> {
  const res = await fetch(`${baseUrl}metrics`);
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), text, ...parseExposition(text) };
}

const same = (a: Record<string, string>, b: Record<string, string>) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** The samples of a family named exactly `name` (a histogram's: `name_bucket` etc.), labels passing `where`. */
export function samples(s: Scrape, name: string, where: (labels: Record<string, string>) => boolean = () => true): Sample[] {
  const family = s.families.get(name.replace(/_(bucket|sum|count)$/, '')) ?? s.families.get(name);
  return (family?.samples ?? []).filter((x) => x.name === name && where(x.labels));
}

/** The value of the one sample named `name` with exactly these labels, or undefined. */
export function valueOf(s: Scrape, name: string, labels: Record<string, string> = {}): number | undefined {
  return samples(s, name).find((x) => same(x.labels, labels))?.value;
}

/** The sum of the values of the samples named `name` whose labels pass `where`. */
export function sumOf(s: Scrape, name: string, where: (labels: Record<string, string>) => boolean = () => true): number {
  return samples(s, name, where).reduce((a, x) => a + x.value, 0);
}
