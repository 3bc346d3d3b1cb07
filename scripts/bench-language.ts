/**
 * Language detectors compared (issue 14, part 5): tinyld, franc-min, franc and cld on a labelled
 * sample of page texts, accuracy and time per page, at several lengths of text given to the
 * detector (the first N characters of the page's visible text, as the crawl's analysis cuts it).
 *
 *   npx tsx scripts/bench-language.ts [--webkb ../shared/data/webkb] [--en 300] [--zh 300] [--lengths 100,300,1000,3000] [--runs 3] [--json]
 *
 * The sample:
 * - en: pages of the WebKB archive (`webkb_html.tar.gz`, read from --webkb, default $WEBKB_SRC or
 *   ../shared/data/webkb; never copied), every k-th HTML member with at least 300 characters of
 *   text, parsed by the crawler's own parser. Without the archive the English sample is the
 *   synthetic corpus's English text instead (said in the output).
 * - zh: synthetic pages of the corpus generator's Chinese themes (src/eval/synth-*), a third of them
 *   converted to traditional script (opencc-js, cn → tw), a third behind an English navigation bar
 *   ("Home | News | About us | Contact" …), as Chinese sites often have.
 * - other: 11 languages (fr de es it pt nl ru ja ko vi ar), three paragraphs each written for this
 *   project (scripts/language-samples.ts), each alone and each pair joined (6 samples a language).
 *
 * cld (CLD2, a native module) is not a dependency of topicrawl: install it to include it
 * (`npm install --no-save cld@2.10.1`, about 30 s of C++ build); without it the table says so.
 * Its API is asynchronous (libuv's thread pool); it is timed one page at a time, awaited.
 * A detector's answer is right when its ISO 639-1 code (franc's ISO 639-3 mapped; cld's "zh-Hant"
 * read as "zh") is the label; "und", "" and errors are wrong.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as OpenCC from 'opencc-js';
import { franc as francMin } from 'franc-min';
import { detect as tinyDetect } from 'tinyld';
import { mulberry32 } from '../src/eval/prng.js';
import { readTarGzFile } from '../src/eval/tar-reader.js';
import { TextSource } from '../src/eval/synth-text.js';
import { THEMES } from '../src/eval/synth-vocab.js';
import { Parse5Parser } from '../src/parse/html-parser.js';
import { ISO_639_3_TO_1 } from '../src/lang/iso-639.js';
import { OTHER_LANGUAGE_TEXTS } from './language-samples.js';

const root = new URL('../', import.meta.url).pathname;
const { values: a } = parseArgs({
  options: {
    webkb: { type: 'string', default: process.env.WEBKB_SRC ?? resolve(root, '../shared/data/webkb') },
    en: { type: 'string', default: '300' },
    zh: { type: 'string', default: '300' },
    lengths: { type: 'string', default: '100,300,1000,3000' },
    runs: { type: 'string', default: '3' },
    json: { type: 'boolean', default: false },
  },
});
const lengths = a.lengths!.split(',').map(Number);
const runs = Number(a.runs);

interface Sample {
  lang: string;
  group: string;
  text: string;
}

function englishSample(n: number): { samples: Sample[]; source: string } {
  const tar = join(a.webkb!, 'webkb_html.tar.gz');
  const parser = new Parse5Parser();
  if (existsSync(tar)) {
    const members = readTarGzFile(tar).filter((m) => m.type === 'file' && m.size > 0);
    const texts: string[] = [];
    const step = Math.max(1, Math.floor(members.length / (n * 3)));
    for (let i = 0; i < members.length && texts.length < n; i += step) {
      const raw = members[i].data.toString('latin1');
      const body = raw.replace(/^[\s\S]*?\r?\n\r?\n/, ''); // the stored HTTP headers
      const text = parser.parse(body, 'http://webkb.example/').text;
      if (text.length >= 300) texts.push(text);
    }
    return { samples: texts.map((text) => ({ lang: 'en', group: 'en (WebKB)', text })), source: `${tar}, ${texts.length} pages (every ${step}th member with ≥ 300 characters of text)` };
  }
  const src = new TextSource(mulberry32(7));
  const en = THEMES.filter((t) => t.lang === 'en');
  const samples = Array.from({ length: n }, (_, i) => ({ lang: 'en', group: 'en (synthetic)', text: Array.from({ length: 4 }, () => src.paragraph(en[i % en.length], 0.4)).join('\n') }));
  return { samples, source: `no ${tar}: synthetic English text instead` };
}

function chineseSample(n: number): Sample[] {
  const src = new TextSource(mulberry32(11));
  const zh = THEMES.filter((t) => t.lang === 'zh');
  const toTw = OpenCC.Converter({ from: 'cn', to: 'tw' });
  const nav = 'Home | News | About us | Contact | Privacy\nLog in\n';
  const out: Sample[] = [];
  for (let i = 0; i < n; i++) {
    const text = Array.from({ length: 4 }, () => src.paragraph(zh[i % zh.length], 0.4)).join('\n');
    if (i % 3 === 1) out.push({ lang: 'zh', group: 'zh traditional', text: toTw(text) });
    else if (i % 3 === 2) out.push({ lang: 'zh', group: 'zh + English nav', text: nav + text });
    else out.push({ lang: 'zh', group: 'zh simplified', text });
  }
  return out;
}

function otherSample(): Sample[] {
  const out: Sample[] = [];
  for (const [lang, paras] of Object.entries(OTHER_LANGUAGE_TEXTS)) {
    for (const p of paras) out.push({ lang, group: 'other', text: p });
    for (let i = 0; i < paras.length; i++) out.push({ lang, group: 'other', text: `${paras[i]}\n${paras[(i + 1) % paras.length]}` });
  }
  return out;
}

type Detector = { name: string; detect: (text: string) => string | Promise<string> };

const detectors: Detector[] = [
  { name: 'tinyld 1.3.4', detect: (t) => tinyDetect(t) || 'und' },
  { name: 'franc-min 6.2.0', detect: (t) => ISO_639_3_TO_1[francMin(t)] ?? francMin(t) },
];
try {
  const { franc } = await import('franc' as string) as { franc: (t: string) => string };
  detectors.push({ name: 'franc 6.2.0', detect: (t) => ISO_639_3_TO_1[franc(t)] ?? franc(t) });
} catch {
  /* franc (the full one) is optional too */
}
let cldNote = '';
try {
  const cld = (await import('cld' as string)).default as { detect: (t: string) => Promise<{ languages: { code: string }[] }> };
  detectors.push({
    name: 'cld 2.10.1',
    detect: async (t) => {
      try {
        return (await cld.detect(t)).languages[0].code.split('-')[0];
      } catch {
        return 'und';
      }
    },
  });
  // the package's JavaScript exposes only the asynchronous call; its binding also has a synchronous one
  const { createRequire } = await import('node:module');
  const binding = createRequire(import.meta.url)('cld/build/Release/cld.node') as {
    detect: (t: string, plain: boolean, lang: string, enc: string, tld: string, http: string, best: boolean) => { languages: { code: string }[] };
  };
  detectors.push({ name: 'cld 2.10.1 (sync binding)', detect: (t) => binding.detect(t, true, '', '', '', '', false).languages[0]?.code.split('-')[0] ?? 'und' });
} catch {
  cldNote = 'cld is not installed (npm install --no-save cld@2.10.1 to include it)';
}

const en = englishSample(Number(a.en));
const samples = [...en.samples, ...chineseSample(Number(a.zh)), ...otherSample()];
const groups = [...new Set(samples.map((s) => s.group))];

interface Cell {
  detector: string;
  length: number;
  accuracy: Record<string, number>;
  /** of zh/en pages, the share a [zh, en] filter keeps; of other pages, the share it drops */
  filter: { keeps_zh_en: number; drops_other: number };
  us_per_page: number;
}
const cells: Cell[] = [];
const wrong = new Map<string, Map<string, number>>();
for (const d of detectors) {
  for (const len of lengths) {
    const cut = samples.map((s) => s.text.slice(0, len));
    const right: Record<string, [number, number]> = {};
    let keep = 0;
    let zhEn = 0;
    let drop = 0;
    let other = 0;
    for (let i = 0; i < samples.length; i++) {
      const got = await d.detect(cut[i]);
      const s = samples[i];
      const r = (right[s.group] ??= [0, 0]);
      r[1]++;
      if (got === s.lang) r[0]++;
      else if (len === 1000) {
        const k = `${d.name} @${len}: ${s.group}`;
        const m = wrong.get(k) ?? new Map<string, number>();
        m.set(got, (m.get(got) ?? 0) + 1);
        wrong.set(k, m);
      }
      const inScope = got === 'zh' || got === 'en';
      if (s.lang === 'zh' || s.lang === 'en') {
        zhEn++;
        if (inScope) keep++;
      } else {
        other++;
        if (!inScope) drop++;
      }
    }
    // time: the whole sample, `runs` times, the best run (the machine is shared)
    let best = Infinity;
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now();
      for (const t of cut) await d.detect(t);
      best = Math.min(best, performance.now() - t0);
    }
    cells.push({
      detector: d.name, length: len,
      accuracy: Object.fromEntries(Object.entries(right).map(([g, [ok, n]]) => [g, ok / n])),
      filter: { keeps_zh_en: keep / zhEn, drops_other: drop / other },
      us_per_page: (best * 1000) / samples.length,
    });
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
if (a.json) {
  process.stdout.write(`${JSON.stringify({ english: en.source, cld: cldNote || 'included', samples: Object.fromEntries(groups.map((g) => [g, samples.filter((s) => s.group === g).length])), cells }, null, 2)}\n`);
} else {
  const lines: string[] = [];
  lines.push(`sample: ${groups.map((g) => `${g} ${samples.filter((s) => s.group === g).length}`).join(', ')}`);
  lines.push(`English: ${en.source}`);
  if (cldNote) lines.push(cldNote);
  lines.push('');
  const head = ['detector', 'chars', ...groups, 'keeps zh/en', 'drops other', 'µs/page'];
  const rows = cells.map((c) => [c.detector, String(c.length), ...groups.map((g) => pct(c.accuracy[g] ?? 0)), pct(c.filter.keeps_zh_en), pct(c.filter.drops_other), c.us_per_page.toFixed(1)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const r of [head, ...rows]) lines.push(r.map((v, i) => (i < 1 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  '));
  lines.push('');
  lines.push('wrong answers at 1000 characters (answer × count):');
  for (const [k, m] of wrong) lines.push(`  ${k}: ${[...m].map(([x, n]) => `${x} ×${n}`).join(', ')}`);
  lines.push('');
  lines.push(`command: npx tsx scripts/bench-language.ts --en ${a.en} --zh ${a.zh} --lengths ${a.lengths} --runs ${a.runs}; node ${process.version}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
