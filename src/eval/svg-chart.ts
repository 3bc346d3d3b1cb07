/**
 * Inline SVG line charts for the eval report: no scripts, no external resources, every text escaped.
 * One chart = axes with "nice" ticks, light grid lines, one polyline per series (dashed for reference
 * series), downsampled so that curves of thousands of points stay small.
 */

/** One line of a chart. `points` are [x, y] in data units; non-finite points are skipped. */
export interface ChartSeries {
  name: string;
  color: string;
  /** drawn dashed (reference lines such as oracle and random) */
  dashed: boolean;
  points: [number, number][];
}

/** How a chart is laid out. Axes start at 0; `xMax`/`yMax` are raised to the next nice tick. */
export interface LineChartOptions {
  /** id of the <svg> element */
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  xMax: number;
  yMax: number;
  width?: number;
  height?: number;
  /** most points drawn per series (default 600) */
  maxPoints?: number;
}

/** Escapes text for HTML/SVG text content and double- or single-quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** The dash pattern of a dashed series, shared by chart lines and legend swatches. */
export const DASH = '7 4';

/** A short line sample (inline SVG) in a series' colour and dash, for legends and tables. */
export function swatch(color: string, dashed: boolean): string {
  const dash = dashed ? ` stroke-dasharray="${DASH}"` : '';
  return `<svg class="swatch" width="30" height="10" aria-hidden="true"><line x1="1" y1="5" x2="29" y2="5" stroke="${escapeHtml(color)}" stroke-width="3"${dash}/></svg>`;
}

/**
 * Reduces a curve to at most ~maxPoints points for drawing, keeping the first and last point and,
 * in each bucket of consecutive points, the lowest and highest (in their original order), so peaks
 * and dips survive. Curves already short enough are returned as they are.
 */
export function downsample(points: [number, number][], maxPoints = 600): [number, number][] {
  if (points.length <= maxPoints || maxPoints < 4) return points;
  const buckets = Math.max(1, Math.floor((maxPoints - 2) / 2));
  const inner = points.length - 2;
  const out: [number, number][] = [points[0]];
  for (let b = 0; b < buckets; b++) {
    const from = 1 + Math.floor((b * inner) / buckets);
    const to = 1 + Math.floor(((b + 1) * inner) / buckets);
    if (to <= from) continue;
    let lo = from;
    let hi = from;
    for (let i = from; i < to; i++) {
      if (points[i][1] < points[lo][1]) lo = i;
      if (points[i][1] > points[hi][1]) hi = i;
    }
    if (lo === hi) out.push(points[lo]);
    else if (lo < hi) out.push(points[lo], points[hi]);
    else out.push(points[hi], points[lo]);
  }
  out.push(points[points.length - 1]);
  return out;
}

/** The tick step for a span: 1, 2 or 5 times a power of ten, giving about `count` ticks. */
export function niceStep(span: number, count = 5): number {
  if (!(span > 0) || !Number.isFinite(span)) return 1;
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/** Ticks 0, step, 2·step, … up to the first tick ≥ max (so the axis ends on a tick). */
export function niceTicks(max: number, count = 5): number[] {
  const step = niceStep(max, count);
  const top = Math.max(step, Math.ceil(max / step - 1e-9) * step);
  const ticks: number[] = [];
  for (let i = 0; i * step <= top + step * 1e-9; i++) ticks.push(round(i * step));
  return ticks;
}

function round(v: number): number {
  return Math.round(v * 1e9) / 1e9;
}

function formatTick(v: number, step: number): string {
  if (step >= 1) return Math.round(v).toLocaleString('en-US');
  const decimals = Math.min(6, Math.max(0, -Math.floor(Math.log10(step) + 1e-9)));
  return v.toFixed(decimals);
}

function fmt(v: number): string {
  return (Math.round(v * 10) / 10).toString();
}

/** Renders a complete <svg> element (a string) for the series; series without points draw nothing. */
export function renderLineChart(series: ChartSeries[], opts: LineChartOptions): string {
  const width = opts.width ?? 880;
  const height = opts.height ?? 380;
  const m = { left: 64, right: 20, top: 16, bottom: 52 };
  const pw = width - m.left - m.right;
  const ph = height - m.top - m.bottom;
  const xTicks = niceTicks(opts.xMax > 0 ? opts.xMax : 1, 6);
  const yTicks = niceTicks(opts.yMax > 0 ? opts.yMax : 1, 5);
  const xTop = xTicks[xTicks.length - 1];
  const yTop = yTicks[yTicks.length - 1];
  const sx = (x: number): number => m.left + (x / xTop) * pw;
  const sy = (y: number): number => m.top + ph - (y / yTop) * ph;
  const xStep = xTicks[1] - xTicks[0];
  const yStep = yTicks[1] - yTicks[0];

  const parts: string[] = [];
  parts.push(
    `<svg id="${escapeHtml(opts.id)}" class="chart-svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(opts.title)}">`,
    `<title>${escapeHtml(opts.title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
  );
  const grid: string[] = [];
  const labels: string[] = [];
  for (const t of yTicks) {
    const y = fmt(sy(t));
    grid.push(`<line x1="${m.left}" y1="${y}" x2="${m.left + pw}" y2="${y}"/>`);
    labels.push(`<text x="${m.left - 8}" y="${y}" text-anchor="end" dominant-baseline="middle">${formatTick(t, yStep)}</text>`);
  }
  for (const t of xTicks) {
    const x = fmt(sx(t));
    grid.push(`<line x1="${x}" y1="${m.top}" x2="${x}" y2="${m.top + ph}"/>`);
    labels.push(`<text x="${x}" y="${m.top + ph + 18}" text-anchor="middle">${formatTick(t, xStep)}</text>`);
  }
  parts.push(`<g class="grid" stroke="#e4e7eb" stroke-width="1">${grid.join('')}</g>`);
  parts.push(
    `<g class="axes" stroke="#1f2937" stroke-width="1.2" fill="none">`,
    `<line x1="${m.left}" y1="${m.top + ph}" x2="${m.left + pw}" y2="${m.top + ph}"/>`,
    `<line x1="${m.left}" y1="${m.top}" x2="${m.left}" y2="${m.top + ph}"/></g>`,
  );
  parts.push(`<g class="ticks" fill="#374151" font-size="12">${labels.join('')}</g>`);
  parts.push(
    `<text class="axis-label" x="${fmt(m.left + pw / 2)}" y="${height - 10}" text-anchor="middle" font-size="13" fill="#111827">${escapeHtml(opts.xLabel)}</text>`,
    `<text class="axis-label" transform="translate(16 ${fmt(m.top + ph / 2)}) rotate(-90)" text-anchor="middle" font-size="13" fill="#111827">${escapeHtml(opts.yLabel)}</text>`,
  );
  // reference lines first, so the strategies being compared are drawn on top of them
  const ordered = [...series.filter((s) => s.dashed), ...series.filter((s) => !s.dashed)];
  for (const s of ordered) {
    const finite = s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
    const pts = downsample(finite, opts.maxPoints ?? 600);
    if (pts.length === 0) continue;
    const coords = pts.map(([x, y]) => `${fmt(sx(Math.min(Math.max(x, 0), xTop)))},${fmt(sy(Math.min(Math.max(y, 0), yTop)))}`);
    const dash = s.dashed ? ` stroke-dasharray="${DASH}"` : '';
    const common = `class="series" data-strategy="${escapeHtml(s.name)}" stroke="${escapeHtml(s.color)}"`;
    if (pts.length === 1) {
      const [cx, cy] = coords[0].split(',');
      parts.push(`<circle ${common} cx="${cx}" cy="${cy}" r="3.5" fill="${escapeHtml(s.color)}"><title>${escapeHtml(s.name)}</title></circle>`);
    } else {
      parts.push(
        `<polyline ${common} fill="none" stroke-width="${s.dashed ? 2 : 2.5}" stroke-linejoin="round" stroke-linecap="round"${dash} points="${coords.join(' ')}"><title>${escapeHtml(s.name)}</title></polyline>`,
      );
    }
  }
  parts.push('</svg>');
  return parts.join('\n');
}
