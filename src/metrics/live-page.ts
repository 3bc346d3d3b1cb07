import { createHash } from 'node:crypto';
import { REPORT_STYLE } from '../eval/report-style.js';
import { escapeHtml } from '../eval/svg-chart.js';
import { LIVE_PAGE_SCRIPT, POLL_MS } from './live-page-script.js';
import type { StatusMeta } from './live-status.js';

/** What the live page adds to the eval report's stylesheet: figure tiles, tables of the lists, the state. */
const LIVE_STYLE = `
.tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(118px,1fr));gap:10px;margin:14px 0}
.tile{border:1px solid #e5e7eb;border-radius:6px;padding:8px 12px;background:#f9fafb}
.tile .v{display:block;font-size:21px;font-weight:700;font-variant-numeric:tabular-nums}
.tile .k{display:block;color:#4b5563;font-size:13px}
.state{display:inline-block;border-radius:10px;padding:0 10px;font-size:13px;background:#dbeafe;color:#1e3a8a}
body[data-state=ended] .state{background:#e5e7eb;color:#374151}
body.offline .state::after{content:" · no answer from the crawl";color:#b91c1c}
table.live{width:100%}table.live th,table.live td{padding:3px 8px;border-bottom:1px solid #f3f4f6;text-align:left}
table.live thead th{background:#f9fafb;font-weight:600}
table.live td.url{overflow-wrap:anywhere;font-size:13px}
table.live.none tbody::after{content:"none yet";color:#6b7280;font-size:13px}
#chart-box{min-height:320px}
`;

/** The Content-Security-Policy of the live page: its own inline script (by hash) and style, requests to its own origin only. */
export const LIVE_PAGE_CSP =
  `default-src 'none'; script-src 'sha256-${createHash('sha256').update(LIVE_PAGE_SCRIPT).digest('base64')}'; ` +
  "style-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'";

const tile = (field: string, format: string, label: string) =>
  `<div class="tile"><span class="v" data-field="${field}" data-format="${format}">—</span><span class="k">${escapeHtml(label)}</span></div>`;

const listTable = (id: string, caption: string, heads: string[]) =>
  `<table class="live none" id="${id}"><caption class="small">${escapeHtml(caption)}</caption><thead><tr>${heads.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody></tbody></table>`;

/**
 * The live crawl page served at `/` of `crawl --metrics-port`: one self-contained HTML page (inline
 * CSS, inline script, the chart as inline SVG; it loads nothing else, and its CSP forbids it) that
 * polls `status.json` and `harvest.svg` every POLL_MS and shows the crawl's figures, the harvest
 * curve, the top hosts, the latest relevant pages and the errors by kind.
 */
export function renderLivePage(meta: StatusMeta): string {
  const who = `topic ${meta.topic}, strategy ${meta.strategy}${meta.worker !== null ? `, worker ${meta.worker}` : ''}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(LIVE_PAGE_CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>topicrawl live: ${escapeHtml(meta.topic)}</title>
<style>${REPORT_STYLE}${LIVE_STYLE}</style>
</head>
<body data-state="starting" data-polls="0">
<main>
<h1>topicrawl live crawl</h1>
<p class="facts-line"><span>${escapeHtml(who)}</span><span class="state" data-field="state">starting</span>
<span>updated <span data-field="now" data-format="time">—</span></span></p>
<section class="tiles">
${tile('pagesPerSec', 'dec1', 'pages/s (last 10 s)')}
${tile('pagesPerSecAvg', 'dec1', 'pages/s (since the start)')}
${tile('pages', 'int', 'pages fetched (crawl)')}
${tile('pagesThisRun', 'int', 'pages in this run')}
${tile('harvest', 'pct', 'estimated harvest')}
${tile('relevant', 'int', 'relevant pages')}
${tile('frontier', 'int', 'frontier (queued URLs)')}
${tile('pruned', 'int', 'pruned by Fish life')}
${tile('hosts.waiting', 'int', 'hosts waiting')}
${tile('hosts.sleeping', 'int', 'hosts sleeping')}
${tile('hosts.suspended', 'int', 'hosts suspended')}
${tile('errors', 'int', 'errors')}
${tile('discoveryRate', 'dec2', 'new URLs per page')}
${tile('bytes', 'bytes', 'bytes fetched')}
</section>
<figure class="chart" id="chart-harvest"><figcaption>Estimated harvest rate after n pages (this run; relevant = at or above the topic's relevance threshold)</figcaption><div id="chart-box"></div></figure>
<div class="cols">
<div>${listTable('top-hosts', 'Top hosts (this run)', ['host', 'pages', 'relevant', 'errors'])}</div>
<div>${listTable('errors-by-kind', 'Errors by kind (this run)', ['kind', 'pages'])}${listTable('warnings-by-kind', 'Warnings by code (this run)', ['code', 'count'])}</div>
</div>
${listTable('latest-relevant', 'Latest relevant pages (this run), newest first', ['score', 'URL'])}
<footer>Updated every ${POLL_MS / 1000} s from <code>status.json</code>; Prometheus metrics at <code>metrics</code>. topicrawl.</footer>
</main>
<script>${LIVE_PAGE_SCRIPT}</script>
</body>
</html>
`;
}
