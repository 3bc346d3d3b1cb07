/** The stylesheet of report.html (eval-report.ts), inlined into the page: the report loads nothing. */
export const REPORT_STYLE = `
:root{color-scheme:light}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC","PingFang SC","Microsoft YaHei","DejaVu Sans",sans-serif;color:#111827;background:#f3f4f6;margin:0}
main{max-width:980px;margin:0 auto;padding:24px 28px;background:#fff}
h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid #e5e7eb;padding-bottom:4px}h3{font-size:15px;margin:16px 0 6px}
.facts-line{color:#374151;margin:0 0 8px}.facts-line span{margin-right:16px;white-space:nowrap}
.summary{background:#eff6ff;border-left:4px solid #2563eb;padding:8px 12px}
dl.explain{display:grid;grid-template-columns:max-content 1fr;gap:4px 14px;margin:0}dl.explain dt{font-weight:600}dl.explain dd{margin:0}
figure.chart{margin:16px 0;padding:8px 8px 4px;background:#fff;border:1px solid #e5e7eb;border-radius:6px;width:max-content;max-width:100%}
figure.chart figcaption{font-weight:600;margin:0 0 4px 8px}
.chart-svg{display:block;max-width:100%;height:auto;font-family:inherit}
ul.legend{list-style:none;display:flex;flex-wrap:wrap;gap:4px 18px;margin:6px 8px;padding:0;font-size:14px}
ul.legend li{display:flex;align-items:center;gap:6px}
.swatch{vertical-align:middle;margin-right:6px;flex:none}
.note{color:#6b7280;font-size:12px}
.small{color:#4b5563;font-size:13px}
.empty{padding:24px;color:#6b7280}
table{border-collapse:collapse;font-size:14px}
table.results{width:100%}table.results th,table.results td{padding:5px 8px;border-bottom:1px solid #e5e7eb;text-align:left}
table.results thead th{background:#f9fafb;font-weight:600;white-space:nowrap}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.best{font-weight:700;background:#dcfce7}
tr.reference{color:#4b5563;font-style:italic}
table.kv th,table.kv td{padding:3px 10px 3px 0;text-align:left;vertical-align:top;border-bottom:1px solid #f3f4f6}
table.kv th{font-weight:600;color:#374151;white-space:nowrap}
table.kv td{overflow-wrap:anywhere}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:0 32px}
ol.seeds{margin:0;padding-left:24px;font-size:13px}ol.seeds code{overflow-wrap:anywhere}
ul.chips{list-style:none;display:flex;flex-wrap:wrap;gap:6px;padding:0;margin:0}
li.chip{border-radius:12px;padding:1px 10px;font-size:13px;border:1px solid}
li.chip.pos{background:#ecfdf5;border-color:#a7f3d0}li.chip.neg{background:#fef2f2;border-color:#fecaca}
li.chip .w{color:#4b5563;font-variant-numeric:tabular-nums}
code{font-family:"DejaVu Sans Mono",ui-monospace,monospace;font-size:13px}
footer{margin-top:28px;color:#6b7280;font-size:12px}
`;
