import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { mulberry32 } from '../../src/eval/prng.js';
import { sentence } from '../../src/eval/synth-text.js';
import { THEMES } from '../../src/eval/synth-vocab.js';

/**
 * A small corpus with planted duplicates, for the near-duplicate and language tests. Two sites with
 * different templates; articles of generated English and Chinese text (the synthetic corpus's
 * sentence generator, fixed seeds), each paragraph five sentences (long lines: the article's text,
 * not boilerplate). Pages, all labelled `news` but the seed pages:
 *
 *   news.example/              the seed: links to every page below, in this order
 *   /a1.html                   article 1 (English), template "news"
 *   /a1-print.html             article 1 again, paragraphs in another order, + a link to /only-from-copy.html
 *   /a2.html                   article 2 (English): another article in the same template
 *   /a1-copy.html              a byte-for-byte copy of /a1.html (exact duplicate)
 *   mirror.example/a1.html     article 1 in the other site's template (other menus, sidebar, footer)
 *   /z1.html                   article 3 (Chinese), template "news"
 *   mirror.example/z1.html     article 3 in the mirror's template, one sentence changed
 *   /fr.html                   a French page with the topic's keyword, + a link to /from-fr.html
 *   /only-from-copy.html, /from-fr.html   short pages reached only from those two
 */
export const NEWS = 'http://news.example/';
export const MIRROR = 'http://mirror.example/';

function article(seed: number, lang: 'en' | 'zh', paragraphs = 6): string[][] {
  const rng = mulberry32(seed);
  const theme = THEMES.find((t) => t.lang === lang && t.label !== null)!;
  return Array.from({ length: paragraphs }, () => Array.from({ length: 5 }, () => sentence(rng, theme, 0.6)));
}

const para = (lang: 'en' | 'zh', p: string[]) => `<p>${p.join(lang === 'en' ? ' ' : '')}</p>`;

function newsPage(title: string, lang: 'en' | 'zh', paras: string[][], extra = ''): string {
  return `<!DOCTYPE html><html lang="${lang}"><head><meta charset="utf-8"><title>${title} - Daily News</title></head><body>
<header><a href="/">Daily News</a><nav><a href="/">Home</a> <a href="/world/">World</a> <a href="/science/">Science</a> <a href="/about.html">About us</a></nav></header>
<main><h1>${title}</h1><p class="meta">2024-03-01 · By Sam Lee</p>
${paras.map((p) => para(lang, p)).join('\n')}${extra}</main>
<footer><p>© 2024 Daily News. All rights reserved.</p></footer></body></html>\n`;
}

function mirrorPage(title: string, lang: 'en' | 'zh', paras: string[][]): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title} | The Mirror</title></head><body>
<div id="top"><b>The Mirror</b> <a href="/">Front page</a> | <a href="/sport/">Sport</a> | <a href="/weather/">Weather</a></div>
<table><tr><td class="side"><ul><li><a href="/p/1.html">Top ten stories of the week</a></li><li><a href="/p/2.html">Letters to the editor</a></li></ul></td>
<td class="content"><h2>${title}</h2><p>Posted 2023-12-24</p>
${paras.map((p) => para(lang, p)).join('\n')}
</td></tr></table><div class="foot">Copyright The Mirror, syndicated content</div></body></html>\n`;
}

const FRENCH =
  "Le télescope de l'observatoire a photographié une galaxie lointaine pendant la nuit. Les astronomes de l'équipe ont comparé ces images avec celles de l'année dernière et ont découvert une nouvelle étoile très brillante dans la nébuleuse. " +
  "Selon les chercheurs, cette découverte permettra de mieux comprendre comment les étoiles naissent et meurent dans notre univers, et le télescope continuera d'observer cette région du ciel pendant plusieurs mois.";

/** Writes the corpus (DESIGN.md format) and returns its pages' URLs by name. */
export function writeDedupCorpus(dir: string): Record<string, string> {
  const en1 = article(101, 'en');
  const en2 = article(202, 'en');
  const zh1 = article(303, 'zh');
  const zh1edit = zh1.map((p) => [...p]);
  zh1edit[2][1] = sentence(mulberry32(999), THEMES.find((t) => t.lang === 'zh' && t.label !== null)!, 0.6);
  const reordered = [en1[3], en1[0], en1[5], en1[1], en1[4], en1[2]];
  const pages: Record<string, [string, string]> = {
    a1: [`${NEWS}a1.html`, newsPage('The telescope sees far', 'en', en1)],
    a1print: [`${NEWS}a1-print.html`, newsPage('The telescope sees far', 'en', reordered, '\n<p><a href="/only-from-copy.html">more</a></p>')],
    a2: [`${NEWS}a2.html`, newsPage('Another story', 'en', en2)],
    a1copy: [`${NEWS}a1-copy.html`, ''],
    mirrorA1: [`${MIRROR}a1.html`, mirrorPage('The telescope sees far', 'en', en1)],
    z1: [`${NEWS}z1.html`, newsPage('烟草新闻', 'zh', zh1)],
    mirrorZ1: [`${MIRROR}z1.html`, mirrorPage('烟草新闻', 'zh', zh1edit)],
    fr: [`${NEWS}fr.html`, `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Le télescope</title></head><body><h1>Le télescope</h1><p>${FRENCH}</p><p>${FRENCH}</p><p><a href="/from-fr.html">suite</a></p></body></html>\n`],
    onlyFromCopy: [`${NEWS}only-from-copy.html`, '<!DOCTYPE html><html><head><title>More</title></head><body><p>More about the telescope.</p></body></html>\n'],
    fromFr: [`${NEWS}from-fr.html`, '<!DOCTYPE html><html><head><title>Suite</title></head><body><p>La suite.</p></body></html>\n'],
  };
  pages.a1copy[1] = pages.a1[1];
  const order = ['a1', 'a1print', 'a2', 'a1copy', 'mirrorA1', 'z1', 'mirrorZ1', 'fr'];
  pages.seed = [NEWS, `<!DOCTYPE html><html><head><title>Daily News</title></head><body><ul>${order.map((k) => `<li><a href="${pages[k][0]}">${k}</a></li>`).join('')}</ul></body></html>\n`];
  pages.mirrorSeed = [MIRROR, '<!DOCTYPE html><html><head><title>The Mirror</title></head><body><p>The Mirror</p></body></html>\n'];
  for (const [url, html] of Object.values(pages)) {
    const u = new URL(url);
    const file = join(dir, 'site', u.host, u.pathname.endsWith('/') ? `${u.pathname}index.html` : u.pathname);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, html);
  }
  writeFileSync(join(dir, 'corpus.json'), JSON.stringify({ name: 'dedup', description: 'planted duplicates', license: 'CC0-1.0', seeds: [NEWS], labels: { news: 'an article' } }));
  const labelled = Object.entries(pages).filter(([k]) => k !== 'seed' && k !== 'mirrorSeed').map(([, [u]]) => `${u}\tnews`);
  writeFileSync(join(dir, 'labels.tsv'), `url\tlabels\n${labelled.join('\n')}\n${NEWS}\t\n${MIRROR}\t\n`);
  return Object.fromEntries(Object.entries(pages).map(([k, [u]]) => [k, u]));
}
