import { renderLineChart } from '../eval/svg-chart.js';
import type { StatusJson } from './status-json.js';

/** The colour of the harvest curve (the eval report's first strategy colour). */
export const HARVEST_COLOR = '#2563eb';

/**
 * The live page's chart, `/harvest.svg`: the estimated harvest after n pages of this run, drawn by
 * the eval report's chart renderer (inline SVG, every text escaped), so the live curve reads like
 * the report's harvest-rate curves.
 */
export function harvestChartSvg(s: Pick<StatusJson, 'harvestCurve' | 'strategy'>): string {
  const curve = s.harvestCurve;
  const last = curve.length ? curve[curve.length - 1][0] : 0;
  return renderLineChart([{ name: s.strategy, color: HARVEST_COLOR, dashed: false, points: curve }], {
    id: 'svg-harvest', title: 'Estimated harvest rate after n pages (this run)', xLabel: 'pages fetched in this run',
    yLabel: 'estimated harvest rate', xMax: Math.max(10, last), yMax: 1, width: 880, height: 320,
  });
}
