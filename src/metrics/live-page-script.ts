/**
 * The live page's script (inline, run in the browser): every POLL_MS it reads `status.json`, writes
 * each figure into the element whose `data-field` names it (formatted by `data-format`), rebuilds the
 * tables from the lists, and swaps in `harvest.svg`. Text goes in through textContent only; the SVG
 * is the server's (escaped by its renderer). It is a string: the project compiles without the DOM
 * library. `document.body.dataset` tells a test when the answer shown was made (`updated`, the
 * JSON's `now`, set with the figures and tables in one go) and how many polls were done (`polls`,
 * counted once the chart is in too).
 */
export const POLL_MS = 2000;

export const LIVE_PAGE_SCRIPT = `
'use strict';
const POLL_MS = ${POLL_MS};
const FORMATS = {
  int: (v) => Math.round(v).toLocaleString('en-US'),
  pct: (v) => (v * 100).toFixed(1) + '%',
  dec1: (v) => v.toFixed(1),
  dec2: (v) => v.toFixed(2),
  score: (v) => v.toFixed(3),
  bytes: (v) => v >= 1048576 ? (v / 1048576).toFixed(1) + ' MB' : v >= 1024 ? (v / 1024).toFixed(1) + ' KB' : v + ' B',
  time: (v) => new Date(v).toISOString().slice(11, 19) + ' UTC',
  text: (v) => String(v),
};
function pick(s, path) {
  return path.split('.').reduce((o, k) => (o === null || o === undefined ? o : o[k]), s);
}
function show(el, v) {
  el.textContent = v === null || v === undefined ? '—' : FORMATS[el.dataset.format || 'text'](v);
}
function cell(tr, v, format, cls) {
  const td = document.createElement('td');
  if (cls) td.className = cls;
  td.dataset.format = format;
  show(td, v);
  tr.appendChild(td);
}
function fill(id, rows, cols) {
  const body = document.querySelector('#' + id + ' tbody');
  body.replaceChildren();
  for (const r of rows) {
    const tr = document.createElement('tr');
    for (const [key, format, cls] of cols) cell(tr, r[key], format, cls);
    body.appendChild(tr);
  }
  document.getElementById(id).classList.toggle('none', rows.length === 0);
}
let polls = 0;
async function poll() {
  try {
    const res = await fetch('status.json', { cache: 'no-store' });
    const s = await res.json();
    for (const el of document.querySelectorAll('[data-field]')) show(el, pick(s, el.dataset.field));
    document.body.dataset.state = s.state;
    fill('top-hosts', s.topHosts, [['host', 'text', 'url'], ['pages', 'int', 'num'], ['relevant', 'int', 'num'], ['errors', 'int', 'num']]);
    fill('latest-relevant', s.latestRelevant, [['relevance', 'score', 'num'], ['url', 'text', 'url']]);
    fill('errors-by-kind', s.errorsByKind, [['kind', 'text', ''], ['count', 'int', 'num']]);
    fill('warnings-by-kind', s.warningsByKind, [['kind', 'text', ''], ['count', 'int', 'num']]);
    document.body.dataset.updated = String(s.now);
    const svg = await fetch('harvest.svg', { cache: 'no-store' });
    if (svg.ok) document.getElementById('chart-box').innerHTML = await svg.text();
    document.body.dataset.polls = String(++polls);
    document.body.classList.remove('offline');
  } catch (e) {
    document.body.classList.add('offline');
  }
  setTimeout(poll, POLL_MS);
}
poll();
`;
