import type { Rng } from './prng.js';
import { PORTALS, type SynthLink, type SynthPlan } from './synth-plan.js';
import { title as makeTitle, type TextSource } from './synth-text.js';
import { THEMES, UI, type Theme } from './synth-vocab.js';

/**
 * Renders one page of a synthetic-corpus plan as a complete HTML document (UTF-8): the same
 * header navigation and footer on every page of a host, the page's own content and content
 * links, then filler paragraphs up to a drawn target size (so pages are 4–20 KB).
 */

const MIN_BYTES = 4300;
const MAX_TARGET = 18000;

const esc = (s: string): string => (!/[&<>"]/.test(s) ? s : s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'));

export function pageUrl(plan: SynthPlan, i: number): string {
  const p = plan.pages[i];
  return `http://${plan.hosts[p.host].name}${p.path}`;
}

/** A neutral theme of the host's language, for text with no theme words (focus 0). */
function fillerTheme(lang: 'en' | 'zh'): Theme {
  return THEMES.find((t) => t.lang === lang)!;
}

export function renderPage(plan: SynthPlan, i: number, rng: Rng, text: TextSource): string {
  const page = plan.pages[i];
  const host = plan.hosts[page.host];
  const ui = UI[host.lang];
  const portal = page.host < PORTALS.length;
  const theme = page.theme >= 0 ? THEMES[page.theme] : null;
  const neutral = fillerTheme(host.lang);
  const href = (to: number): string => (plan.pages[to].host === page.host ? plan.pages[to].path : pageUrl(plan, to));
  const anchor = (to: number): string => {
    const t = plan.pages[to];
    return t.kind === 'home' || t.kind === 'portal-home' ? plan.hosts[t.host].siteName : t.title;
  };
  const linkHtml = (l: SynthLink): string => {
    if (l.to < 0) return `<a href="${esc(l.path!)}">${esc(makeTitle(rng, theme ?? neutral))}</a>`;
    return `<a href="${esc(href(l.to))}">${esc(anchor(l.to))}</a>`;
  };

  // navigation: identical on every page of the host
  const nav: string[] = [`<a href="/">${ui.home}</a>`];
  if (portal) {
    for (const t of THEMES) nav.push(`<a href="/dir/${t.slug}/">${esc(t.section)}</a>`);
    if (page.host === 0) nav.push(`<a href="/picks.html">${esc(ui.picks)}</a>`);
  } else {
    for (const th of host.sections) nav.push(`<a href="${plan.pages[host.sectionFirst.get(th)!].path}">${esc(THEMES[th].section)}</a>`);
  }
  const foot = [`<a href="/about.html">${ui.about}</a>`, `<a href="/contact.html">${ui.contact}</a>`, `<a href="/privacy.html">${ui.privacy}</a>`];
  if (host.robots) foot.push(`<a href="/members/">${ui.members}</a>`);

  const heading = page.kind === 'footer' || page.kind === 'members' ? ui[page.title] ?? page.title : page.title;
  const docTitle = page.kind === 'home' || page.kind === 'portal-home' ? host.siteName : `${heading} - ${host.siteName}`;
  const main: string[] = [`<h1>${esc(heading)}</h1>`];
  const list = (items: string[], cls: string, h2?: string): void => {
    if (items.length === 0) return;
    if (h2) main.push(`<h2>${esc(h2)}</h2>`);
    main.push(`<ul class="${cls}">\n${items.map((x) => `<li>${x}</li>`).join('\n')}\n</ul>`);
  };

  switch (page.kind) {
    case 'article': {
      const t = theme!;
      main.push(`<p class="meta">${page.date} · ${ui.by} ${esc(rng.pick(t.lang === 'en' ? ['Alex Morgan', 'Sam Lee', 'Jordan Reyes', 'Priya Nair'] : ['本报记者', '特约撰稿人', '通讯员', '编辑部']))}</p>`);
      const inline = page.links.filter((l) => l.place === 'inline');
      const paras = Math.max(3, inline.length);
      for (let k = 0; k < paras; k++) {
        if (k === 2) main.push(`<h2>${esc(makeTitle(rng, t))}</h2>`);
        let para = text.paragraph(t, k === paras - 1 ? 0.15 : 0.5);
        if (k < inline.length) para += t.lang === 'en' ? ` See also ${linkHtml(inline[k])}.` : `详见${linkHtml(inline[k])}。`;
        main.push(`<p>${para}</p>`);
      }
      if (t.label === null && rng.chance(0.15)) {
        const other = THEMES.filter((x) => x.label !== null && x.lang === t.lang);
        if (other.length > 0) main.push(`<p>${text.paragraph(rng.pick(other), 0.3, 2, 3)}</p>`);
      }
      list(page.links.filter((l) => l.place === 'list').map(linkHtml), 'related', page.hub || page.bridge ? ui.picks : ui.related);
      break;
    }
    case 'home':
      main.push(`<p class="intro">${text.paragraph(theme!, 0.4, 2, 3)}</p>`);
      list(page.links.filter((l) => plan.pages[l.to].kind === 'article').map(linkHtml), 'latest', ui.latest);
      list(page.links.filter((l) => plan.pages[l.to].kind === 'home').map(linkHtml), 'partners', ui.partners);
      break;
    case 'section': {
      const { page: k, of, items } = page.listing!;
      main.push(`<p class="intro">${text.paragraph(theme!, 0.35, 1, 2)}</p>`);
      list(items.map((a) => `<a href="${esc(plan.pages[a].path)}">${esc(plan.pages[a].title)}</a> <span class="date">${plan.pages[a].date}</span><p>${text.sentence(THEMES[plan.pages[a].theme], 0.5)}</p>`), 'listing');
      const pager: string[] = [];
      const base = plan.pages[host.sectionFirst.get(page.theme)!].path;
      const pathOf = (n: number): string => (n === 1 ? base : host.lang === 'en' ? `${base}page-${n}.html` : `${base}index_${n - 1}.html`);
      if (k > 1) pager.push(`<a href="${pathOf(k - 1)}" rel="prev">${ui.prev}</a>`);
      if (k < of) pager.push(`<a href="${pathOf(k + 1)}" rel="next">${ui.next}</a>`);
      if (pager.length > 0) main.push(`<p class="pager">${pager.join(' ')}</p>`);
      break;
    }
    case 'portal-home':
      main.push(`<p class="intro">${text.paragraph(neutral, 0, 1, 2)}</p>`);
      list(THEMES.map((t) => `<a href="/dir/${t.slug}/">${esc(t.section)}</a>`), 'categories', ui.directory);
      list(page.links.map(linkHtml), 'sites', ui.sites);
      break;
    case 'portal-dir':
      main.push(`<p class="intro">${text.paragraph(theme!, 0.3, 1, 2)}</p>`);
      list(page.links.filter((l) => plan.pages[l.to].kind === 'home').map((l) => `${linkHtml(l)} — ${text.sentence(theme!, 0.4)}`), 'sites', ui.sites);
      list(page.links.filter((l) => plan.pages[l.to].kind === 'article').map(linkHtml), 'articles', ui.picks);
      break;
    case 'portal-picks':
      list(page.links.map(linkHtml), 'picks');
      break;
    case 'members':
      if (page.path === '/members/') main.push(`<p><a href="/members/login.html">${host.lang === 'en' ? 'Log in' : '登录'}</a></p>`);
      main.push(`<form method="post" action="/members/login.html"><input name="user"><input name="password" type="password"><button>OK</button></form>`);
      break;
    default:
      break;
  }

  const head = `<!DOCTYPE html>\n<html lang="${(theme?.lang ?? host.lang) === 'en' ? 'en' : 'zh-CN'}">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${esc(docTitle)}</title>\n</head>\n<body>\n<header><a class="logo" href="/">${esc(host.siteName)}</a>\n<nav>${nav.join(' ')}</nav></header>\n<main>\n`;
  const tail = `\n</main>\n<footer><p>${foot.join(' | ')}</p><p>© ${host.name.replace(/^www\./, '')} ${ui.rights}</p></footer>\n</body>\n</html>\n`;
  let bytes = Buffer.byteLength(head) + Buffer.byteLength(tail) + main.reduce((s, x) => s + Buffer.byteLength(x) + 1, 0);
  const target = rng.int(MIN_BYTES, MAX_TARGET);
  const fillTheme = page.kind === 'footer' || page.kind === 'members' || page.kind === 'portal-home' || page.kind === 'portal-picks' ? neutral : theme!;
  const focus = fillTheme === neutral && !theme ? 0 : page.kind === 'article' ? 0.35 : 0.2;
  while (bytes < target) {
    const p = `<p>${text.paragraph(fillTheme, focus)}</p>`;
    main.push(p);
    bytes += Buffer.byteLength(p) + 1;
  }
  return head + main.join('\n') + tail;
}
