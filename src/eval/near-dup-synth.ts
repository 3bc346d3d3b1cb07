import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { mulberry32, type Rng } from './prng.js';
import { sentence, title as makeTitle } from './synth-text.js';
import { THEMES, type Theme } from './synth-vocab.js';

/**
 * A generated web of templated near-duplicates with known truth, for measuring near-duplicate
 * detection (scripts/bench-near-dup.ts) and for the crawl tests. Articles (English or Chinese, 2 to
 * 12 paragraphs of the synthetic corpus's sentences, each drawn afresh) are published on sites
 * whose templates differ in layout and boilerplate: HTML5 (header/nav, aside with popular links,
 * footer), an old table layout (link bar, side column with a newsletter blurb and a 40-word "about
 * this site" paragraph, copyright div), and
 * a portal (breadcrumb, share bar, "related" list with one-sentence teasers, comment counter).
 *
 * Each article has its original page and, for a share of the articles, copies:
 * - `template`: the same text on another site (another template and boilerplate);
 * - `edits`: on the original's site at another URL, with small edits (about 3% of the words
 *   replaced, one sentence added, one dropped, a new date line);
 * - `reordered`: on the original's site at another URL, its paragraphs in another order;
 * - `template+edits`: on a third site, with edits.
 * Two pages are near-duplicates exactly when they carry the same article; every other pair is
 * distinct, among them every two articles on one site (same template, different article).
 * Deterministic for a seed.
 */

export type CopyKind = 'original' | 'template' | 'edits' | 'reordered' | 'template+edits';

export interface NearDupPage {
  url: string;
  html: string;
  /** The article it carries: pages with the same article are near-duplicates, others are not. */
  article: number;
  kind: CopyKind;
  lang: 'en' | 'zh';
  /** The article's theme label, if it has one (astronomy, tobacco, …). */
  label: string | null;
}

export interface NearDupSetOptions {
  seed: number;
  /** Articles (default 400). */
  articles?: number;
  /** Sites (default 12; at least 3). */
  sites?: number;
  /** Share of the articles that get copies (default 0.5). */
  copied?: number;
  /** Languages of the articles (default both). */
  langs?: readonly ('en' | 'zh')[];
}

type Style = 'html5' | 'table' | 'portal';

interface Site {
  host: string;
  name: string;
  lang: 'en' | 'zh';
  style: Style;
  sections: string[];
  popular: string[];
}

interface Article {
  id: number;
  theme: Theme;
  title: string;
  date: string;
  paragraphs: string[][];
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const UI = {
  en: { about_site: 'This site is an independent magazine written by a small team of editors and volunteer correspondents who report on the stories our readers care about, check every fact twice and never publish sponsored content without saying so.', home: 'Home', about: 'About us', contact: 'Contact', rights: 'All rights reserved.', popular: 'Most read', related: 'Related stories', share: 'Share this story: Facebook Twitter Email Print', news: 'Subscribe to our newsletter and get the week\'s best stories in your inbox every Friday morning.', comments: 'comments', by: 'By' },
  zh: { about_site: '本站是一家独立的网络杂志，由一支小型编辑团队和志愿通讯员共同撰写，报道读者关心的新闻故事，每一条事实都经过两次核对，刊登赞助内容时一定会明确说明，欢迎广大读者来信提供线索和意见建议。', home: '首页', about: '关于我们', contact: '联系我们', rights: '版权所有，未经授权不得转载。', popular: '热门文章', related: '相关阅读', share: '分享到：微信 微博 QQ空间 打印本页', news: '订阅我们的电子报，每周五早上把一周最好的文章送到您的邮箱。', comments: '条评论', by: '作者' },
} as const;

function makeArticle(rng: Rng, id: number, theme: Theme): Article {
  const paragraphs: string[][] = [];
  const n = rng.int(2, 12);
  for (let p = 0; p < n; p++) paragraphs.push(Array.from({ length: rng.int(3, 6) }, () => sentence(rng, theme, 0.5)));
  return { id, theme, title: makeTitle(rng, theme), date: `20${rng.int(10, 24)}-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`, paragraphs };
}

/** Small edits: ~3% of the words (English) or of the sentences' nouns (Chinese) replaced, a sentence added, one dropped, a new date. */
function edited(rng: Rng, a: Article): Article {
  const paragraphs = a.paragraphs.map((p) => p.map((s) => {
    if (a.theme.lang === 'en') return s.split(' ').map((w) => (rng.chance(0.03) ? rng.pick(a.theme.nouns).split(' ')[0] : w)).join(' ');
    return rng.chance(0.15) ? s.replace(/[\u4e00-\u9fff]{2}/, rng.pick(a.theme.nouns)) : s;
  }));
  const drop = rng.int(0, paragraphs.length - 1);
  if (paragraphs[drop].length > 1) paragraphs[drop].splice(rng.int(0, paragraphs[drop].length - 1), 1);
  const add = rng.int(0, paragraphs.length - 1);
  paragraphs[add].splice(rng.int(0, paragraphs[add].length), 0, sentence(rng, a.theme, 0.5));
  return { ...a, date: `20${rng.int(10, 24)}-01-0${rng.int(1, 9)}`, paragraphs };
}

function reordered(rng: Rng, a: Article): Article {
  let paragraphs = rng.shuffle(a.paragraphs);
  if (paragraphs.length > 1 && paragraphs.every((p, i) => p === a.paragraphs[i])) paragraphs = [...a.paragraphs.slice(1), a.paragraphs[0]];
  return { ...a, paragraphs };
}

function render(rng: Rng, site: Site, a: Article, teasers: Article[]): string {
  const ui = UI[site.lang];
  const sep = site.lang === 'en' ? ' ' : '';
  const body = a.paragraphs.map((p) => `<p>${esc(p.join(sep))}</p>`).join('\n');
  const byline = `<p class="meta">${a.date} · ${ui.by} ${esc(rng.pick(site.lang === 'en' ? ['Alex Morgan', 'Sam Lee', 'Priya Nair'] : ['本报记者', '特约撰稿人', '通讯员']))}</p>`;
  const nav = [ui.home, ...site.sections, ui.about, ui.contact].map((s, i) => `<a href="/${i === 0 ? '' : `s${i}/`}">${esc(s)}</a>`);
  const popular = site.popular.map((t, i) => `<li><a href="/popular/${i}.html">${esc(t)}</a></li>`).join('');
  const related = teasers.map((t, i) => `<li><a href="/related/${t.id}-${i}.html">${esc(t.title)}</a><p>${esc(t.paragraphs[0][0])}</p></li>`).join('\n');
  const year = 2024;
  const head = `<!DOCTYPE html>\n<html lang="${site.lang === 'en' ? 'en' : 'zh-CN'}"><head><meta charset="utf-8"><title>${esc(a.title)} - ${esc(site.name)}</title></head><body>\n`;
  switch (site.style) {
    case 'html5':
      return `${head}<header><a href="/">${esc(site.name)}</a><nav>${nav.join(' ')}</nav></header>
<aside><h3>${ui.popular}</h3><ul>${popular}</ul></aside>
<main><article><h1>${esc(a.title)}</h1>${byline}\n${body}</article></main>
<footer><p>© ${year} ${esc(site.name)}. ${ui.rights}</p><p>${nav.slice(-2).join(' | ')}</p></footer></body></html>\n`;
    case 'table':
      return `${head}<div id="top"><b>${esc(site.name)}</b><br>${nav.join(' | ')}</div>
<table><tr><td class="side"><p>${ui.news}</p><ul>${popular}</ul><p>${ui.about_site}</p></td>
<td class="content"><h2>${esc(a.title)}</h2>${byline}\n${body}</td></tr></table>
<div class="foot">Copyright © ${year} ${esc(site.name)} ${ui.rights} ${nav.slice(-2).join(' ')}</div></body></html>\n`;
    default:
      return `${head}<div class="top"><a href="/">${esc(site.name)}</a> ${nav.join(' ')}</div>
<div class="crumbs">${nav[0]} &gt; ${nav[1]} &gt; ${esc(a.title)}</div>
<div class="story"><h1>${esc(a.title)}</h1>${byline}<div class="share">${ui.share}</div>\n${body}
<div class="count">${rng.int(0, 300)} ${ui.comments}</div></div>
<div class="related"><h3>${ui.related}</h3><ul>${related}</ul></div>
<div class="bottom">${nav.slice(-2).join(' · ')} © ${esc(site.name)}</div></body></html>\n`;
  }
}

/** The generated pages, originals and copies interleaved in a shuffled order (as a crawl might meet them). */
export function generateNearDupSet(opts: NearDupSetOptions): NearDupPage[] {
  const rng = mulberry32(opts.seed);
  const nArticles = opts.articles ?? 400;
  const langs = opts.langs ?? ['en', 'zh'];
  const nSites = Math.max(3, opts.sites ?? 12);
  const styles: Style[] = ['html5', 'table', 'portal'];
  const themes = THEMES.filter((t) => langs.includes(t.lang));
  const sites: Site[] = [];
  for (let i = 0; i < nSites; i++) {
    const lang = langs[i % langs.length];
    const own = themes.filter((t) => t.lang === lang);
    const th = own[i % own.length];
    sites.push({
      host: `www.${th.hostWords[i % th.hostWords.length]}-${i}.example`,
      name: `${th.siteNames[i % th.siteNames.length]} ${i}`,
      lang,
      style: styles[Math.floor(i / langs.length) % styles.length],
      sections: rng.shuffle(own.map((t) => t.section)).slice(0, 3),
      popular: Array.from({ length: 5 }, () => makeTitle(rng, rng.pick(own))),
    });
  }
  const articles: Article[] = [];
  for (let i = 0; i < nArticles; i++) articles.push(makeArticle(rng, i, rng.pick(themes.filter((t) => t.lang === langs[i % langs.length]))));
  const pages: NearDupPage[] = [];
  const sitesOf = (lang: string) => sites.filter((s) => s.lang === lang);
  const teasersFor = (a: Article) => rng.shuffle(articles.filter((b) => b.theme.lang === a.theme.lang && b.id !== a.id)).slice(0, 4);
  for (const a of articles) {
    const own = sitesOf(a.theme.lang);
    const home = own[a.id % own.length];
    const others = rng.shuffle(own.filter((s) => s !== home));
    const add = (site: Site, art: Article, kind: CopyKind, path: string) =>
      pages.push({ url: `http://${site.host}${path}`, html: render(rng, site, art, teasersFor(a)), article: a.id, kind, lang: a.theme.lang, label: a.theme.label });
    add(home, a, 'original', `/a/${a.id}.html`);
    if (!rng.chance(opts.copied ?? 0.5)) continue;
    const kinds = rng.shuffle(['template', 'edits', 'reordered', 'template+edits'] as const).slice(0, rng.int(1, 3));
    for (const k of kinds) {
      if (k === 'template') add(others[0], a, k, `/syndicated/${a.id}.html`);
      else if (k === 'edits') add(home, edited(rng, a), k, `/a/${a.id}-updated.html`);
      else if (k === 'reordered') add(home, reordered(rng, a), k, `/print/${a.id}.html`);
      else add(others[1] ?? others[0], edited(rng, a), k, `/copy/${a.id}.html`);
    }
  }
  return rng.shuffle(pages);
}

/**
 * Writes pages as a corpus (DESIGN.md format): one folder per host, a home page per site linking
 * to all of its pages (the seeds), labels.tsv from the articles' theme labels.
 */
export function writeNearDupCorpus(dir: string, pages: readonly NearDupPage[], name = 'near-dup'): { seeds: string[] } {
  const byHost = new Map<string, NearDupPage[]>();
  for (const p of pages) {
    const u = new URL(p.url);
    const file = join(dir, 'site', u.host, decodeURIComponent(u.pathname));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, p.html);
    const list = byHost.get(u.host) ?? [];
    list.push(p);
    byHost.set(u.host, list);
  }
  const seeds: string[] = [];
  for (const [host, list] of byHost) {
    const links = list.map((p) => `<li><a href="${new URL(p.url).pathname}">${p.article}</a></li>`).join('\n');
    writeFileSync(join(dir, 'site', host, 'index.html'), `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${host}</title></head><body><ul>\n${links}\n</ul></body></html>\n`);
    seeds.push(`http://${host}/`);
  }
  const labels = [...new Set(pages.map((p) => p.label).filter((l): l is string => l !== null))];
  writeFileSync(join(dir, 'corpus.json'), JSON.stringify({ name, description: 'generated templated near-duplicates (src/eval/near-dup-synth.ts)', license: 'CC0-1.0', seeds, labels: Object.fromEntries(labels.map((l) => [l, `pages about ${l}`])) }, null, 2));
  writeFileSync(join(dir, 'labels.tsv'), `url\tlabels\n${pages.map((p) => `${p.url}\t${p.label ?? ''}`).join('\n')}\n${seeds.map((s) => `${s}\t`).join('\n')}\n`);
  return { seeds };
}
