import type { Rng } from './prng.js';
import { title } from './synth-text.js';
import { THEMES, type Lang } from './synth-vocab.js';

/**
 * The page plan of the synthetic corpus: hosts, their pages (kind, theme, path, title) and the
 * content links between pages. Pure data, no I/O; `synth-html.ts` renders it and
 * `synth-corpus.ts` writes it. Every random choice comes from the given Rng, in a fixed order.
 */

export type PageKind = 'home' | 'section' | 'article' | 'footer' | 'members' | 'portal-home' | 'portal-dir' | 'portal-picks';

export interface SynthHost {
  name: string;
  lang: Lang;
  /** Index into THEMES; -1 for a portal (web directory). */
  dominant: number;
  siteName: string;
  /** Section themes in nav order (dominant first). */
  sections: number[];
  robots: boolean;
  /** Page indices of this host, in creation order. */
  pages: number[];
  /** First page index of each section's listing, by theme. */
  sectionFirst: Map<number, number>;
  /** Article URL style. */
  style: number;
}

export interface SynthLink {
  /** Target page index, or -1 for a dead link (then `path` is used on the source host). */
  to: number;
  path?: string;
  /** Where the link sits: in the text, in a list (related/latest/partners/listing). */
  place: 'inline' | 'list';
}

export interface SynthPage {
  host: number;
  path: string;
  kind: PageKind;
  /** Index into THEMES, or -1 for none. */
  theme: number;
  title: string;
  bridge: boolean;
  hub: boolean;
  date: string;
  links: SynthLink[];
  /** Section listing: the page number (1-based) and the articles it lists. */
  listing?: { page: number; of: number; items: number[] };
}

export interface SynthPlan {
  hosts: SynthHost[];
  pages: SynthPage[];
  seeds: number[];
}

export const PER_LISTING = 25;
/** Share of an on-topic article's content links that go to the same theme. */
export const LOCALITY = 0.8;
const DEAD_LINK_RATE = 0.015;
const GENERIC_HOST_WORDS = ['daily', 'hub', 'info', 'zixun', 'online', 'center', 'home', 'world', 'wang', 'express'];

/** Stable portal hosts (the corpus seeds live there). */
export const PORTALS = [
  { name: 'www.webdir-1.test', lang: 'en' as Lang, siteName: 'Open Web Directory' },
  { name: 'www.daohang-2.test', lang: 'zh' as Lang, siteName: '网址导航大全' },
];

const pad = (n: number): string => String(n).padStart(2, '0');

function sectionPath(lang: Lang, slug: string, k: number): string {
  const base = lang === 'en' ? `/topics/${slug}/` : `/channel/${slug}/`;
  if (k === 1) return base;
  return lang === 'en' ? `${base}page-${k}.html` : `${base}index_${k - 1}.html`;
}

function articlePath(style: number, slug: string, id: number, date: string): string {
  const [y, m, d] = date.split('-');
  switch (style) {
    case 0: return `/articles/${id}.html`;
    case 1: return `/news/${y}/${m}/${id}.html`;
    case 2: return `/${slug}/${id}.html`;
    case 3: return `/content/${y}${m}/t${y}${m}${d}_${id}.html`;
    default: return `/html/${slug}/${id}.html`;
  }
}

/** Builds the plan. Throws RangeError when pages are too few for the hosts. */
export function planCorpus(rng: Rng, totalPages: number, hostCount: number): SynthPlan {
  const T = THEMES.length;
  const regular = hostCount - PORTALS.length;
  if (regular < T) throw new RangeError(`need at least ${T + PORTALS.length} hosts (got ${hostCount})`);
  const portalPages = PORTALS.length * (1 + T + 3) + 1;
  const minPerHost = 24;
  if (totalPages - portalPages < regular * minPerHost) throw new RangeError(`need at least ${regular * minPerHost + portalPages} pages for ${hostCount} hosts (got ${totalPages})`);

  // themes of regular hosts: every theme once, then at random (labelled themes a little more often)
  const themeOf: number[] = rng.shuffle(THEMES.map((_, i) => i));
  while (themeOf.length < regular) themeOf.push(rng.weighted(THEMES.map((t) => (t.label ? 1.2 : 0.8))));
  const hostThemes = rng.shuffle(themeOf);
  const robotsSet = new Set(rng.shuffle(hostThemes.map((_, i) => i)).slice(0, Math.max(1, Math.round(regular * 0.1))));

  const hosts: SynthHost[] = PORTALS.map((p) => ({ ...p, dominant: -1, sections: [], robots: false, pages: [], sectionFirst: new Map(), style: 0 }));
  hostThemes.forEach((th, i) => {
    const theme = THEMES[th];
    const word = rng.chance(0.7) ? rng.pick(theme.hostWords) : rng.pick(GENERIC_HOST_WORDS);
    const style = theme.lang === 'en' ? rng.pick([0, 1, 2]) : rng.pick([3, 4, 0]);
    hosts.push({ name: `www.${word}-${hosts.length + 1}.test`, lang: theme.lang, dominant: th, siteName: rng.pick(theme.siteNames), sections: [], robots: robotsSet.has(i), pages: [], sectionFirst: new Map(), style });
  });

  // page budgets: a Zipf-like spread over regular hosts, each at least minPerHost
  const remaining = totalPages - portalPages;
  const ranks = rng.shuffle(hostThemes.map((_, i) => i));
  const weights = ranks.map((r) => 1 / Math.pow(r + 1, 0.6));
  const wsum = weights.reduce((a, b) => a + b, 0);
  const spare = remaining - regular * minPerHost;
  const budgets = weights.map((w) => minPerHost + Math.floor((spare * w) / wsum));
  for (let i = 0, left = remaining - budgets.reduce((a, b) => a + b, 0); left > 0; i = (i + 1) % regular, left--) budgets[i]++;

  const pages: SynthPage[] = [];
  const add = (p: Omit<SynthPage, 'links' | 'bridge' | 'hub' | 'date'> & Partial<SynthPage>): number => {
    pages.push({ links: [], bridge: false, hub: false, date: '', ...p });
    hosts[p.host].pages.push(pages.length - 1);
    return pages.length - 1;
  };
  const byTheme: number[][] = THEMES.map(() => []);
  const byHostTheme = new Map<string, number[]>();
  const randomDate = (): string => `${rng.int(2016, 2024)}-${pad(rng.int(1, 12))}-${pad(rng.int(1, 28))}`;

  // portals: home, one directory page per theme, footer pages; the first portal has an editor's picks page
  PORTALS.forEach((p, h) => {
    add({ host: h, path: '/', kind: 'portal-home', theme: -1, title: p.siteName });
    THEMES.forEach((t, ti) => add({ host: h, path: `/dir/${t.slug}/`, kind: 'portal-dir', theme: ti, title: `${p.siteName} · ${t.section}` }));
    if (h === 0) add({ host: h, path: '/picks.html', kind: 'portal-picks', theme: -1, title: `${p.siteName} · Editor's picks` });
    for (const f of ['about', 'contact', 'privacy']) add({ host: h, path: `/${f}.html`, kind: 'footer', theme: -1, title: f });
  });

  // regular hosts
  for (let hi = 0; hi < regular; hi++) {
    const h = hi + PORTALS.length;
    const host = hosts[h];
    const budget = budgets[hi];
    const dom = host.dominant;
    const sameLang = THEMES.map((_t, i) => i).filter((i) => i !== dom && THEMES[i].lang === host.lang);
    const otherLang = THEMES.map((_t, i) => i).filter((i) => THEMES[i].lang !== host.lang);
    const drawn: number[] = [];
    for (let i = 0; i < budget; i++) drawn.push(rng.chance(0.75) ? dom : rng.chance(0.8) ? rng.pick(sameLang) : rng.pick(otherLang));
    const fixed = 4 + (host.robots ? 2 : 0);
    const sectionsFor = (a: number): Map<number, number> => {
      const counts = new Map<number, number>();
      for (let i = 0; i < a; i++) counts.set(drawn[i], (counts.get(drawn[i]) ?? 0) + 1);
      return counts;
    };
    let a = budget - fixed;
    let counts = sectionsFor(a);
    const listings = (c: Map<number, number>): number => [...c.values()].reduce((s, n) => s + Math.ceil(n / PER_LISTING), 0);
    while (a + listings(counts) > budget - fixed) counts = sectionsFor(--a);
    host.sections = [...counts.keys()].sort((x, y) => (x === dom ? -1 : y === dom ? 1 : counts.get(y)! - counts.get(x)! || x - y));

    add({ host: h, path: '/', kind: 'home', theme: dom, title: host.siteName });
    let id = rng.int(100, 5000);
    const articlesOf = new Map<number, number[]>(host.sections.map((t) => [t, []]));
    for (let i = 0; i < a; i++) {
      const th = drawn[i];
      const theme = THEMES[th];
      const date = randomDate();
      const p = add({
        host: h, path: articlePath(host.style, theme.slug, id++, date), kind: 'article', theme: th, title: title(rng, theme), date,
        bridge: theme.label === null && rng.chance(0.08), hub: rng.chance(0.04),
      });
      articlesOf.get(th)!.push(p);
      byTheme[th].push(p);
    }
    for (const th of host.sections) {
      const items = articlesOf.get(th)!;
      byHostTheme.set(`${h}:${th}`, items);
      const of = Math.ceil(items.length / PER_LISTING);
      for (let k = 1; k <= of; k++) {
        const p = add({ host: h, path: sectionPath(host.lang, THEMES[th].slug, k), kind: 'section', theme: th, title: `${THEMES[th].section} - ${host.siteName}`, listing: { page: k, of, items: items.slice((k - 1) * PER_LISTING, k * PER_LISTING) } });
        if (k === 1) host.sectionFirst.set(th, p);
      }
    }
    for (const f of ['about', 'contact', 'privacy']) add({ host: h, path: `/${f}.html`, kind: 'footer', theme: -1, title: f });
    if (host.robots) {
      add({ host: h, path: '/members/', kind: 'members', theme: -1, title: 'members' });
      add({ host: h, path: '/members/login.html', kind: 'members', theme: -1, title: 'login' });
    }
  }

  // content links
  const labelled = THEMES.map((_t, i) => i).filter((i) => THEMES[i].label !== null);
  const pickIn = (th: number, from: number, self: number): number => {
    const local = byHostTheme.get(`${pages[from].host}:${th}`);
    const list = local && local.length > 1 && rng.chance(0.5) ? local : byTheme[th];
    const t = rng.pick(list);
    return t === self ? rng.pick(byTheme[th]) : t;
  };
  const ring = rng.shuffle(hosts.map((_, i) => i).slice(PORTALS.length));
  pages.forEach((p, i) => {
    const host = hosts[p.host];
    if (p.kind === 'article') {
      const k = p.hub ? rng.int(15, 35) : p.bridge ? rng.int(6, 12) : rng.int(3, 8);
      for (let j = 0; j < k; j++) {
        const place = j < Math.ceil(k * 0.4) ? 'inline' : 'list';
        if (rng.chance(DEAD_LINK_RATE)) {
          p.links.push({ to: -1, path: articlePath(host.style, THEMES[p.theme].slug, 900000 + rng.int(0, 99999), p.date || '2020-01-01'), place });
          continue;
        }
        const th = p.bridge ? rng.pick(labelled) : rng.chance(LOCALITY) ? p.theme : rng.int(0, T - 1);
        if (byTheme[th].length === 0) continue;
        p.links.push({ to: pickIn(th, i, i), place });
      }
    } else if (p.kind === 'home') {
      const own = host.pages.filter((q) => pages[q].kind === 'article').slice(-10);
      for (const q of own) p.links.push({ to: q, place: 'list' });
      const next = ring[(ring.indexOf(p.host) + 1) % ring.length];
      const partners = new Set<number>([next]);
      const same = ring.filter((x) => hosts[x].dominant === host.dominant && x !== p.host);
      for (let j = rng.int(2, 4); j > 0; j--) partners.add(same.length > 0 && rng.chance(0.7) ? rng.pick(same) : rng.pick(ring));
      partners.delete(p.host);
      for (const x of partners) p.links.push({ to: hosts[x].pages[0], place: 'list' });
    } else if (p.kind === 'portal-home') {
      for (const x of ring) if (rng.chance(0.4)) p.links.push({ to: hosts[x].pages[0], place: 'list' });
    } else if (p.kind === 'portal-dir') {
      const of = ring.filter((x) => hosts[x].dominant === p.theme);
      of.forEach((x, j) => {
        if (j === 0 || rng.chance(0.6)) p.links.push({ to: hosts[x].pages[0], place: 'list' });
      });
      for (let j = 0; j < 5 && byTheme[p.theme].length > 0; j++) p.links.push({ to: rng.pick(byTheme[p.theme]), place: 'list' });
    } else if (p.kind === 'portal-picks') {
      for (let j = 0; j < 30; j++) {
        const th = rng.int(0, T - 1);
        if (byTheme[th].length > 0) p.links.push({ to: rng.pick(byTheme[th]), place: 'list' });
      }
    }
  });
  return { hosts, pages, seeds: [hosts[0].pages[0], hosts[1].pages[0], pages.findIndex((p) => p.kind === 'portal-picks')] };
}
