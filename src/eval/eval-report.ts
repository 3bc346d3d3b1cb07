/**
 * report.html for `topicrawl eval`: one self-contained page (inline CSS, inline SVG, no scripts, no
 * external resources; a Content-Security-Policy forbids loading any) with the harvest-rate and
 * target-recall curves of every strategy, a results table and the topic and weights used.
 * Every text that comes from the inputs is HTML-escaped.
 */
import type { EvalResults, ReportMeta, StrategyResult } from './eval-types.js';
import { escapeHtml, renderLineChart, swatch, type ChartSeries } from './svg-chart.js';
import { REPORT_STYLE as STYLE } from './report-style.js';

/** Colours of the compared strategies, in run order (reference strategies are grey). */
const PALETTE = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed', '#db2777', '#0891b2', '#65a30d', '#92400e'];
const REFERENCE_COLORS: Record<string, string> = { oracle: '#525252', random: '#a3a3a3' };

/** True for the reference strategies (oracle, random): drawn dashed and grey, never "best". */
export function isReferenceStrategy(name: string): boolean {
  return /^(oracle|random)\b/i.test(name);
}

/** Colour and dash of each strategy, in the order of `names`. */
export function strategyStyles(names: string[]): Map<string, { color: string; dashed: boolean }> {
  const styles = new Map<string, { color: string; dashed: boolean }>();
  let next = 0;
  for (const name of names) {
    if (isReferenceStrategy(name)) {
      const key = name.toLowerCase().startsWith('oracle') ? 'oracle' : 'random';
      styles.set(name, { color: REFERENCE_COLORS[key], dashed: true });
    } else {
      styles.set(name, { color: PALETTE[next % PALETTE.length], dashed: false });
      next++;
    }
  }
  return styles;
}

/** Target-recall curve derived from a harvest curve: recall(n) = harvest(n)·n / relevantInCorpus. */
export function recallCurve(curve: [number, number][], relevantInCorpus: number): [number, number][] {
  if (!(relevantInCorpus > 0)) return [];
  return curve.map(([n, h]) => [n, (h * n) / relevantInCorpus]);
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : NaN);
const fixed = (v: number, d: number): string => (Number.isFinite(v) ? v.toFixed(d) : '—');
const int = (v: number): string => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '—');
const ratio = (a: number, b: number): number => (Number.isFinite(a) && b > 0 ? a / b : NaN);

function formatDate(iso: string): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return iso;
  return new Date(t).toISOString().replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC');
}

function legend(names: string[], results: EvalResults, styles: ReturnType<typeof strategyStyles>): string {
  const items = names.map((name) => {
    const st = styles.get(name)!;
    const s = results.strategies[name];
    const notes: string[] = [];
    if (isReferenceStrategy(name)) notes.push('reference');
    if (!(num(s.fetched) > 0)) notes.push('no pages fetched');
    const note = notes.length ? ` <span class="note">(${notes.join(', ')})</span>` : '';
    return `<li>${swatch(st.color, st.dashed)}<span class="name">${escapeHtml(name)}</span>${note}</li>`;
  });
  return `<ul class="legend">${items.join('')}</ul>`;
}

function chartFigure(id: string, caption: string, svg: string, legendHtml: string): string {
  return `<figure class="chart" id="${id}"><figcaption>${escapeHtml(caption)}</figcaption>${svg}${legendHtml}</figure>`;
}

interface Row {
  name: string;
  s: StrategyResult;
  values: Record<string, number>;
}

function resultsTable(results: EvalResults, names: string[], styles: ReturnType<typeof strategyStyles>): string {
  const bf = results.strategies['breadth-first'];
  const oracleName = names.find((n) => /^oracle\b/i.test(n));
  const oracle = oracleName ? results.strategies[oracleName] : undefined;
  const rows: Row[] = names.map((name) => {
    const s = results.strategies[name];
    const h = num(s.harvest_rate);
    return {
      name,
      s,
      values: {
        relevant: num(s.relevant),
        harvest: h,
        recall: num(s.target_recall),
        auc: num(s.auc),
        bf: bf ? ratio(h, num(bf.harvest_rate)) : NaN,
        oracle: oracle ? ratio(h, num(oracle.harvest_rate)) * 100 : NaN,
      },
    };
  });
  const candidates = rows.filter((r) => !isReferenceStrategy(r.name));
  const best: Record<string, number> = {};
  if (candidates.length >= 2) {
    for (const key of Object.keys(rows[0]?.values ?? {})) {
      const vals = candidates.map((r) => r.values[key]).filter(Number.isFinite);
      if (vals.length) best[key] = Math.max(...vals);
    }
  }
  const cell = (r: Row, key: string, text: string): string => {
    const isBest = !isReferenceStrategy(r.name) && best[key] !== undefined && r.values[key] === best[key];
    return `<td class="num${isBest ? ' best' : ''}">${text}</td>`;
  };
  const head = ['strategy', 'fetched', 'relevant', 'harvest rate', 'target recall', 'auc'];
  if (bf) head.push('× breadth-first');
  if (oracle) head.push('% of oracle');
  head.push('wall s');
  const body = rows.map((r) => {
    const st = styles.get(r.name)!;
    const ref = isReferenceStrategy(r.name);
    const wall = num(r.s.wall_s);
    const tds = [
      `<th scope="row">${swatch(st.color, st.dashed)}${escapeHtml(r.name)}${ref ? ' <span class="note">reference</span>' : ''}</th>`,
      `<td class="num">${int(num(r.s.fetched))}</td>`,
      cell(r, 'relevant', int(r.values.relevant)),
      cell(r, 'harvest', fixed(r.values.harvest, 3)),
      cell(r, 'recall', fixed(r.values.recall, 3)),
      cell(r, 'auc', fixed(r.values.auc, 3)),
    ];
    if (bf) tds.push(cell(r, 'bf', Number.isFinite(r.values.bf) ? `${r.values.bf.toFixed(2)}×` : '—'));
    if (oracle) tds.push(cell(r, 'oracle', Number.isFinite(r.values.oracle) ? `${r.values.oracle.toFixed(0)}%` : '—'));
    tds.push(`<td class="num">${fixed(wall, wall < 10 ? 2 : 1)}</td>`);
    return `<tr${ref ? ' class="reference"' : ''}>${tds.join('')}</tr>`;
  });
  const notes: string[] = [];
  if (bf) notes.push('× breadth-first: harvest rate divided by breadth-first’s.');
  if (oracle) notes.push('% of oracle: harvest rate as a share of the oracle’s.');
  if (candidates.length >= 2) notes.push('Highlighted: the best value among the non-reference strategies.');
  return (
    `<table class="results"><thead><tr>${head.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead>` +
    `<tbody>${body.join('')}</tbody></table>` +
    (notes.length ? `<p class="small">${notes.map(escapeHtml).join(' ')}</p>` : '')
  );
}

function weightChips(weights: Record<string, number> | undefined): string {
  const entries = Object.entries(weights ?? {}).sort((a, b) => num(b[1]) - num(a[1]) || a[0].localeCompare(b[0]));
  if (entries.length === 0) return '<p class="small">none</p>';
  const chips = entries.map(([k, w]) => {
    const cls = num(w) < 0 ? 'neg' : 'pos';
    return `<li class="chip ${cls}"><span class="k">${escapeHtml(k)}</span> <span class="w">${escapeHtml(w)}</span></li>`;
  });
  return `<ul class="chips">${chips.join('')}</ul>`;
}

function keyValueTable(obj: Record<string, unknown> | undefined, cls: string): string {
  const entries = Object.entries(obj ?? {});
  if (entries.length === 0) return '<p class="small">none</p>';
  const rows = entries.map(([k, v]) => {
    const text = v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v);
    return `<tr><th scope="row">${escapeHtml(k)}</th><td>${escapeHtml(text)}</td></tr>`;
  });
  return `<table class="kv ${cls}"><tbody>${rows.join('')}</tbody></table>`;
}

function topicSection(meta: ReportMeta, results: EvalResults): string {
  const seeds = meta.seeds ?? [];
  const seedList = `<ol class="seeds">${seeds.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('')}</ol>`;
  const seedsHtml = seeds.length > 12 ? `<details><summary>${seeds.length} seeds</summary>${seedList}</details>` : seedList;
  const rel = meta.relevance ?? { threshold: NaN, fields: {} };
  return `<section id="topic"><h2>Topic and weights</h2>
<table class="kv facts"><tbody>
<tr><th scope="row">topic file</th><td><code>${escapeHtml(meta.topicFile ?? '')}</code></td></tr>
<tr><th scope="row">corpus</th><td><code>${escapeHtml(meta.corpusDir ?? '')}</code></td></tr>
<tr><th scope="row">description</th><td>${escapeHtml(meta.description ?? '')}</td></tr>
<tr><th scope="row">evaluation label</th><td><code>${escapeHtml(results.label)}</code></td></tr>
</tbody></table>
<h3>Seeds</h3>${seeds.length ? seedsHtml : '<p class="small">none</p>'}
<div class="cols">
<div><h3>Strategy block</h3>${keyValueTable(meta.strategy, 'strategy')}</div>
<div><h3>Relevance</h3><p>threshold <b>${Number.isFinite(num(rel.threshold)) ? escapeHtml(rel.threshold) : '—'}</b></p>${keyValueTable(rel.fields, 'fields')}</div>
</div>
<h3>Keywords</h3>${weightChips(meta.keywords)}
<h3>Location tokens</h3>${weightChips(meta.locationTokens)}
</section>`;
}

function summary(results: EvalResults, names: string[]): string {
  const compared = names.filter((n) => !isReferenceStrategy(n) && num(results.strategies[n].fetched) > 0);
  if (compared.length === 0) return '';
  const top = compared.reduce((a, b) => (num(results.strategies[b].harvest_rate) > num(results.strategies[a].harvest_rate) ? b : a));
  const s = results.strategies[top];
  const extra: string[] = [];
  const bf = results.strategies['breadth-first'];
  if (bf && top !== 'breadth-first' && num(bf.harvest_rate) > 0) extra.push(`${(num(s.harvest_rate) / num(bf.harvest_rate)).toFixed(2)}× breadth-first`);
  const o = names.find((n) => /^oracle\b/i.test(n));
  if (o && num(results.strategies[o].harvest_rate) > 0) extra.push(`${((num(s.harvest_rate) / num(results.strategies[o].harvest_rate)) * 100).toFixed(0)}% of oracle`);
  return `<p class="summary">Best harvest rate: <b>${escapeHtml(top)}</b>, ${fixed(num(s.harvest_rate), 3)}${extra.length ? ` (${extra.join(', ')})` : ''}, target recall ${fixed(num(s.target_recall), 3)}.</p>`;
}


/** Renders report.html (a complete, self-contained HTML document) from the results and the settings used. */
export function renderReport(results: EvalResults, meta: ReportMeta): string {
  const names = Object.keys(results.strategies ?? {});
  const styles = strategyStyles(names);
  const R = num(results.relevant_in_corpus);
  const fetchedMax = Math.max(0, ...names.map((n) => num(results.strategies[n].fetched)).filter(Number.isFinite));
  const xMax = fetchedMax > 0 ? fetchedMax : Math.max(1, num(results.budget) || 1);
  const curveOf = (n: string): [number, number][] => (Array.isArray(results.strategies[n].curve) ? results.strategies[n].curve : []);
  const maxOf = (pts: [number, number][][]): number => {
    let m = 0;
    for (const p of pts) for (const [, y] of p) if (Number.isFinite(y) && y > m) m = y;
    return m > 0 ? Math.min(1, m) : 1;
  };
  const harvestSeries: ChartSeries[] = names.map((n) => ({ name: n, ...styles.get(n)!, points: curveOf(n) }));
  const recallSeries: ChartSeries[] = names.map((n) => ({ name: n, ...styles.get(n)!, points: recallCurve(curveOf(n), R) }));
  const legendHtml = legend(names, results, styles);
  const harvestSvg = renderLineChart(harvestSeries, {
    id: 'svg-harvest',
    title: 'Harvest rate vs pages fetched',
    xLabel: 'pages fetched',
    yLabel: 'harvest rate',
    xMax,
    yMax: maxOf(harvestSeries.map((s) => s.points)),
  });
  const recallSvg =
    R > 0
      ? renderLineChart(recallSeries, {
          id: 'svg-recall',
          title: 'Target recall vs pages fetched',
          xLabel: 'pages fetched',
          yLabel: 'target recall',
          xMax,
          yMax: maxOf(recallSeries.map((s) => s.points)),
        })
      : `<p class="empty">The corpus has no page labelled <code>${escapeHtml(results.label)}</code>, so target recall is undefined.</p>`;
  const title = `topicrawl eval: ${results.topic} on ${results.corpus}`;
  const noStrategies = names.length === 0 ? '<p class="empty">No strategy was run.</p>' : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header>
<h1>Harvest report: ${escapeHtml(results.topic)}</h1>
<p class="facts-line"><span>corpus <b>${escapeHtml(results.corpus)}</b></span><span>label <b>${escapeHtml(results.label)}</b></span><span>budget <b>${int(num(results.budget))}</b> pages</span><span>relevant in corpus <b>${int(R)}</b></span><span>in flight <b>${int(num(results.concurrency ?? 1))}</b> (per host <b>${int(num(results.per_host_concurrency ?? 1))}</b>)</span><span>${escapeHtml(formatDate(meta.generatedAt ?? ''))}</span></p>
${summary(results, names)}
</header>
<section id="explain"><h2>What the numbers mean</h2>
<dl class="explain">
<dt>harvest rate</dt><dd>relevant pages among the first <i>n</i> fetched, divided by <i>n</i>: how much of the budget went to on-topic pages.</dd>
<dt>target recall</dt><dd>relevant pages among the first <i>n</i> fetched, divided by the relevant pages in the whole corpus: how much of the topic was found.</dd>
<dt>auc</dt><dd>the mean harvest rate over <i>n</i> = 1 … fetched (area under the harvest curve per fetch); 1 means every fetch was relevant from the first, and finding relevant pages early scores higher.</dd>
<dt>oracle, random</dt><dd>reference lines (dashed, grey), when present: an order that knows the labels, and a random order.</dd>
</dl>
</section>
<section id="charts"><h2>Curves</h2>
${noStrategies}
${chartFigure('chart-harvest', 'Harvest rate vs pages fetched', harvestSvg, legendHtml)}
${chartFigure('chart-recall', 'Target recall vs pages fetched', recallSvg, legendHtml)}
</section>
<section id="results"><h2>Results</h2>
${names.length ? resultsTable(results, names, styles) : '<p class="empty">No strategy was run.</p>'}
</section>
${topicSection(meta, results)}
<footer>Generated by topicrawl eval. This page is self-contained: it loads nothing.</footer>
</main>
</body>
</html>
`;
}
