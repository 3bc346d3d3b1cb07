import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * A small corpus (DESIGN.md format) for the metrics tests: `hosts` hosts, each a home page linking to
 * `pages` pages (every other one about tobacco, the others about travel), one folder linked without
 * its slash (a 301 from the corpus server) and `missing` links to pages that are not there (404s).
 * Every host's home page also links to the next host's, so one seed reaches them all. With
 * `duplicates`, each host also has /copy.html, the same page as its /p0.html (relevant): a duplicate.
 */
export function writeMetricsCorpus(dir: string, o: { hosts: number; pages: number; missing: number; duplicates?: boolean }): { seed: string; hosts: string[] } {
  const hosts = Array.from({ length: o.hosts }, (_, h) => `site${h + 1}.metrics.test`);
  const put = (host: string, path: string, body: string) => {
    const file = join(dir, 'site', host, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, body);
  };
  const page = (title: string, text: string, links: string[]) =>
    `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p><ul>${links.map((l, i) => `<li><a href="${l}">link ${i}</a></li>`).join('')}</ul></body></html>`;
  const TOBACCO = 'Tobacco leaf, cigarette and tobacco trade: tobacco growers, cigarette makers and tobacco regulation.';
  const TRAVEL = 'Travel notes: beaches, hotels, trains and the best season for a holiday by the sea.';
  hosts.forEach((host, h) => {
    const links = Array.from({ length: o.pages }, (_, i) => `/p${i}.html`);
    for (let m = 0; m < o.missing; m++) links.push(`/missing-${m}.html`);
    links.push('/folder', `http://${hosts[(h + 1) % hosts.length]}/`);
    if (o.duplicates) links.push('/copy.html');
    // every page's text is its own (the crawl records a page with another's text as a duplicate, its links not followed)
    put(host, 'index.html', page(`Tobacco portal ${h + 1}`, `${TOBACCO} The home of ${host}.`, links));
    for (let i = 0; i < o.pages; i++) {
      put(host, `p${i}.html`, page(i % 2 === 0 ? `Tobacco page ${i}` : `Travel page ${i}`, `${i % 2 === 0 ? TOBACCO : TRAVEL} Page ${i} of ${host}.`, ['/']));
    }
    if (o.duplicates) put(host, 'copy.html', page('Tobacco page 0', `${TOBACCO} Page 0 of ${host}.`, ['/']));
    put(host, 'folder/index.html', page('Tobacco folder', `${TOBACCO} The folder of ${host}.`, []));
  });
  writeFileSync(join(dir, 'corpus.json'), JSON.stringify({ name: 'metrics', description: 'metrics tests', license: 'CC0-1.0', seeds: [`http://${hosts[0]}/`], labels: { tobacco: 'on topic' } }));
  writeFileSync(join(dir, 'labels.tsv'), 'url\tlabels\n');
  return { seed: `http://${hosts[0]}/`, hosts };
}
