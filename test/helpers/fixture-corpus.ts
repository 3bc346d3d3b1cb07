import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturePath } from './fixtures.js';

export interface TobaccoFixture {
  pages: { id: string; zh: string; url: string }[];
  links: Record<string, string[]>;
  seed: string;
  expected: Record<string, { order: string[] }>;
}

export const FIXTURE_PATH = fixturePath('tobacco-graph.json');

export function readTobaccoFixture(): TobaccoFixture {
  return JSON.parse(readFileSync(FIXTURE_PATH, 'utf8')) as TobaccoFixture;
}

/** Writes the fixture's 11 home pages, linked exactly as it says, as a corpus (DESIGN.md format). */
export function writeFixtureCorpus(dir: string, fx: TobaccoFixture): void {
  const byId = new Map(fx.pages.map((p) => [p.id, p]));
  for (const p of fx.pages) {
    const host = new URL(p.url).host;
    mkdirSync(join(dir, 'site', host), { recursive: true });
    const links = fx.links[p.id].map((id) => `<li><a href="${byId.get(id)!.url}">${byId.get(id)!.zh}</a></li>`).join('\n');
    writeFileSync(
      join(dir, 'site', host, 'index.html'),
      `<!doctype html><html lang="zh"><head><meta charset="utf-8"><title>${p.zh}</title></head><body><h1>${p.zh}</h1><p>烟草行业资讯。</p><ul>${links}</ul></body></html>`,
    );
  }
  writeFileSync(
    join(dir, 'corpus.json'),
    JSON.stringify({ name: 'tobacco-fixture', description: 'fixture graph', license: 'CC0-1.0', seeds: [byId.get(fx.seed)!.url], labels: { tobacco: 'on topic' } }),
  );
  writeFileSync(join(dir, 'labels.tsv'), `url\tlabels\n${fx.pages.map((p) => `${p.url}\ttobacco`).join('\n')}\n`);
}
