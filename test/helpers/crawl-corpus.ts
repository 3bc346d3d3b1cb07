import { join } from 'node:path';
import { Crawler, type CrawlSummary } from '../../src/crawl/crawler.js';
import { startCorpusServer, type CorpusRequestRecord } from '../../src/eval/corpus-server.js';
import { exportRows, type ExportRow } from '../../src/store/crawl-report.js';
import { openDatabase } from '../../src/store/sqlite-store.js';
import { buildConfig } from '../../src/topic/config.js';
import type { Strategy } from '../../src/strategy/strategy.js';
import type { TopicInput } from '../../src/topic/topic-schema.js';

export interface CorpusCrawl {
  summary: CrawlSummary;
  rows: ExportRow[];
  requests: CorpusRequestRecord[];
}

/** Serves a corpus on loopback and runs the real crawl loop on it into a real SQLite file. */
export async function crawlCorpus(corpusDir: string, topic: TopicInput, dbPath: string, opts: { stopAfter?: number; strategy?: Strategy } = {}): Promise<CorpusCrawl> {
  const requests: CorpusRequestRecord[] = [];
  const server = await startCorpusServer(corpusDir, { onRequest: (r) => requests.push(r) });
  try {
    const crawler = new Crawler({ config: buildConfig(topic), dbPath, resolve: server.resolveMap(), mappedOnly: true, progressEveryMs: 50, strategy: opts.strategy });
    if (opts.stopAfter !== undefined) {
      let n = 0;
      crawler.on('page', () => {
        if (++n === opts.stopAfter) crawler.stop();
      });
    }
    let summary: CrawlSummary;
    try {
      summary = await crawler.run();
    } finally {
      await crawler.close();
    }
    return { summary, rows: readRows(dbPath), requests };
  } finally {
    await server.close();
  }
}

export function readRows(dbPath: string): ExportRow[] {
  const db = openDatabase(dbPath, { readonly: true });
  try {
    return [...exportRows(db)];
  } finally {
    db.close();
  }
}

export const repoRoot = join(new URL('../../', import.meta.url).pathname);
