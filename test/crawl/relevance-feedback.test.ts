import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { words as stopwordList } from 'natural/lib/natural/util/stopwords.js';
import { runStats } from '../../src/cli/report-commands.js';
import { FEEDBACK_META_KEY, parseFeedback, type FeedbackRecord } from '../../src/crawl/relevance-feedback.js';
import { openDatabase } from '../../src/store/sqlite-store.js';
import type { TopicInput } from '../../src/topic/topic-schema.js';
import { crawlCorpus } from '../helpers/crawl-corpus.js';
import { suiteTmpDir, tmpDir } from '../helpers/tmp.js';
import { errorOf } from '../helpers/error-of.js';

/**
 * Relevance feedback on a real crawl (loopback HTTP server, real SQLite file). The site: a home page
 * linking 15 telescope pages and 25 cooking pages; the telescope pages also say "nebula",
 * "observatory" and "spectroscopy" (which the topic does not name), plus stop words, a number and a
 * short token; 10 pages reachable only from the cooking pages speak of nebulae and observatories but
 * never of telescopes. Breadth-first with one request at a time: the same order every run.
 */
const HOST = 'stars.test';
const corpus = suiteTmpDir();
const page = (title: string, body: string, links: string[] = []) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${body}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;
const url = (p: string) => `http://${HOST}/${p}`;
{
  const site = join(corpus, 'site', HOST);
  mkdirSync(site, { recursive: true });
  const on = Array.from({ length: 15 }, (_, i) => `scope-${i}.html`);
  const off = Array.from({ length: 25 }, (_, i) => `food-${i}.html`);
  const hidden = Array.from({ length: 10 }, (_, i) => `sky-${i}.html`);
  writeFileSync(join(site, 'index.html'), page('Welcome', 'A site about many things.', [...on, ...off].map(url)));
  on.forEach((p, i) =>
    writeFileSync(join(site, p), page(`Telescope ${i}`, `The telescope and the nebula by the observatory, spectroscopy and spectroscopy in 2024, uv uv uv. A nebula, a nebula. Recipe ${i} and gardening.`)),
  );
  off.forEach((p, i) => writeFileSync(join(site, p), page(`Recipe ${i}`, `A recipe with bread and butter, gardening and soup. Cooking is fun ${i}.`, [url(hidden[i % 10])])));
  hidden.forEach((p, i) => writeFileSync(join(site, p), page(`Night ${i}`, 'The nebula above the observatory, a nebula again.')));
  writeFileSync(join(corpus, 'corpus.json'), JSON.stringify({ name: 'stars', description: 'feedback test', license: 'CC0-1.0', seeds: [url('index.html')], labels: { stars: 'on topic' } }));
  writeFileSync(join(corpus, 'labels.tsv'), `url\tlabels\n${[...on, ...hidden].map((p) => `${url(p)}\tstars`).join('\n')}\n`);
}

const base: TopicInput = {
  name: 'stars',
  seeds: [url('index.html')],
  keywords: { telescope: 1 },
  strategy: { name: 'breadth-first' },
  politeness: { delay_ms: 0, concurrency: 1, per_host_concurrency: 1, robots: false },
  limits: { max_pages: 100 },
};
const withFeedback = (fb: Record<string, number>): TopicInput => ({ ...base, relevance: { feedback: fb } } as TopicInput);

function stored(db: string): { rec: FeedbackRecord | null; scores: Map<string, number | null> } {
  const d = openDatabase(db, { readonly: true });
  try {
    const value = (d.prepare('SELECT value FROM meta WHERE key = ?').get(FEEDBACK_META_KEY) as { value: string } | undefined)?.value;
    const rows = d.prepare('SELECT url, relevance FROM urls WHERE fetch_seq IS NOT NULL').all() as { url: string; relevance: number | null }[];
    return { rec: parseFeedback(value), scores: new Map(rows.map((r) => [r.url, r.relevance])) };
  } finally {
    d.close();
  }
}

describe('relevance feedback in a crawl', () => {
  it('is off by default: no terms, the pages that never say "telescope" score 0', async () => {
    const db = join(tmpDir(), 'plain.db');
    const { summary } = await crawlCorpus(corpus, base, db);
    expect(summary.feedback).toBeNull();
    const { rec, scores } = stored(db);
    expect(rec).toBeNull();
    expect(scores.get(url('sky-0.html'))).toBe(0);
  });

  it('adds the terms the top pages share (no stop words, numbers or short tokens), capped, and scores later pages with them', async () => {
    const db = join(tmpDir(), 'fb.db');
    const { summary } = await crawlCorpus(corpus, withFeedback({ after: 20, top: 10, max_terms: 2, weight: 0.5 }), db);
    const rec = summary.feedback!;
    expect(rec).not.toBeNull();
    expect(rec.pages).toBe(20);
    expect(rec.terms.map((t) => t.term)).toEqual(['nebula', 'spectroscopy']);
    // weights below the user's keyword (1), the best one at weight × 1
    expect(rec.terms[0].weight).toBe(0.5);
    expect(rec.terms[1].weight).toBeLessThanOrEqual(0.5);
    const stop = new Set(stopwordList);
    for (const t of rec.terms) expect(stop.has(t.term) || /\d/.test(t.term) || t.term.length < 3).toBe(false);
    const { rec: kept, scores } = stored(db);
    expect(kept).toEqual(rec);
    // fetched after the terms took effect (depth 2): scored by "nebula"
    expect(scores.get(url('sky-0.html'))).toBeGreaterThan(0);
  });

  it('without a cap that bites, every shared term comes in; observatory is among them', async () => {
    const db = join(tmpDir(), 'fb10.db');
    const { summary } = await crawlCorpus(corpus, withFeedback({ after: 20, top: 10, max_terms: 10, weight: 0.5 }), db);
    const terms = summary.feedback!.terms.map((t) => t.term);
    expect(terms).toContain('observatory');
    expect(terms).not.toContain('telescope');
    expect(terms).not.toContain('2024');
    expect(terms).not.toContain('uv');
  });

  it('survives resume: stopped after the terms were chosen, or before, the resumed crawl has the same terms', async () => {
    const dir = tmpDir();
    const topic = withFeedback({ after: 20, top: 10, max_terms: 3, weight: 0.5 });
    const whole = await crawlCorpus(corpus, topic, join(dir, 'whole.db'));
    const wholeTerms = whole.summary.feedback!.terms;

    const late = join(dir, 'late.db');
    const first = await crawlCorpus(corpus, topic, late, { stopAfter: 30 });
    expect(first.summary.reason).toBe('signal');
    const chosen = stored(late).rec!;
    expect(chosen.terms).toEqual(wholeTerms);
    const second = await crawlCorpus(corpus, topic, late);
    expect(second.summary.resumed).toBe(true);
    // not chosen again: the same record, time included
    expect(second.summary.feedback).toEqual(chosen);
    expect(stored(late).scores.get(url('sky-0.html'))).toBeGreaterThan(0);

    const early = join(dir, 'early.db');
    await crawlCorpus(corpus, topic, early, { stopAfter: 8 });
    expect(stored(early).rec).toBeNull();
    const resumed = await crawlCorpus(corpus, topic, early);
    expect(resumed.summary.feedback!.terms).toEqual(wholeTerms);
  });

  it('shows in the crawl summary', async () => {
    const { formatSummary } = await import('../../src/cli/format.js');
    const { summary } = await crawlCorpus(corpus, withFeedback({ after: 20, top: 10, max_terms: 2, weight: 0.5 }), join(tmpDir(), 'sum.db'));
    expect(formatSummary(summary)).toMatch(/\n  feedback terms +nebula \(0\.5\), spectroscopy \(0\.\d+\) \(relevance\.feedback: chosen from the first 20 scored pages/);
    expect(formatSummary({ ...summary, feedback: null })).not.toMatch(/feedback terms/);
  });

  it('shows in stats', async () => {
    const db = join(tmpDir(), 'stats.db');
    await crawlCorpus(corpus, withFeedback({ after: 20, top: 10, max_terms: 2, weight: 0.5 }), db);
    const lines: string[] = [];
    runStats({ db }, { log: (s) => lines.push(s) });
    expect(lines.join('\n')).toMatch(/feedback terms +nebula \(0\.5\), spectroscopy \(0\.\d+\)/);
    const json: string[] = [];
    runStats({ db, json: true }, { log: (s) => json.push(s) });
    const totals = (JSON.parse(json.join('')) as { totals: { feedback: FeedbackRecord } }).totals;
    expect(totals.feedback.terms.map((t) => t.term)).toEqual(['nebula', 'spectroscopy']);
  });
});

describe('relevance feedback and shared crawls', () => {
  it('is refused in a shared crawl (one line, E_CONFIG), before anything starts', async () => {
    const { Crawler } = await import('../../src/crawl/crawler.js');
    const { buildConfig } = await import('../../src/topic/config.js');
    const e = errorOf(() => new Crawler({ config: buildConfig(withFeedback({ after: 20 })), dbPath: join(tmpDir(), 'x'), backend: () => Promise.reject(new Error('not opened')) }));
    expect((e as { code?: string }).code).toBe('E_CONFIG');
    expect(e.message).toMatch(/^relevance\.feedback: not available in a shared crawl/);
  });
});
