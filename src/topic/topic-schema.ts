import * as z from 'zod';

/**
 * The ordering strategy of a topic that names none: `learning` (measured better than best-first-fish
 * on average and within 2 points of it on every topic: README "Learning while crawling"); on a
 * shared frontier, where learning's model cannot be shared, {@link SHARED_DEFAULT_STRATEGY}.
 */
export const DEFAULT_STRATEGY = 'learning';
export const SHARED_DEFAULT_STRATEGY = 'best-first-fish';
import { MAX_INDEX_DISTANCE } from '../dedup/band-index.js';
import { DEFAULT_REVISIT_CLASSES } from '../revisit/default-classes.js';

// A topic file is validated once per command: zod's compiled fast path (`new Function`, built on
// the first parse) cost more than it saves, ~10 ms before a crawl's first request (measured).
z.config({ jitless: true });

/**
 * The schema of a topic file (YAML). Every key has a default except `name` and `seeds`, so a
 * minimal topic is a name, seeds and keywords. `topics/topic.schema.json` is generated from this
 * (`npm run schema`), so editors can complete and check topic files.
 */
const weightMap = z.record(z.string().min(1), z.number().finite());

export const TopicSchema = z
  .object({
    name: z.string().min(1).describe('Short identifier of the topic.'),
    description: z.string().default('').describe('What the topic is about.'),
    seeds: z.array(z.url({ protocol: /^https?$/ })).min(1).describe('Start URLs (http or https).'),
    scope: z
      .object({
        hosts: z.array(z.string().min(1)).default([]).describe('Allowed host patterns (glob: "*.example.com", "example.org"). Empty: any host.'),
        include: z.array(z.string().min(1)).default([]).describe('Regular expressions; when non-empty a URL must match one.'),
        exclude: z.array(z.string().min(1)).default([]).describe('Regular expressions; a URL matching any is skipped.'),
        exclude_traps: z.boolean().default(true).describe('Also skip the built-in trap patterns: calendars, ?sort=/order=, faceted filters, session ids.'),
        languages: z
          .array(z.string().regex(/^[a-z]{2,3}$/, 'a language code such as zh or en (ISO 639-1, lower case)'))
          .default([])
          .describe('Page languages in scope (ISO 639-1: zh, en, …). A fetched page detected in another language counts in no harvest and its links are not followed. Empty: any language.'),
      })
      .strict()
      .default({ hosts: [], include: [], exclude: [], exclude_traps: true, languages: [] }),
    url: z
      .object({
        strip_params: z.array(z.string().min(1)).default([]).describe('More query parameters to remove (a trailing * makes a prefix: "ref_*").'),
        keep_default_strip_list: z.boolean().default(true).describe('Also remove the built-in tracking parameters (utm_*, fbclid, gclid, …).'),
        sort_query: z.boolean().default(true).describe('Sort query parameters by name.'),
        follow_canonical: z.boolean().default(true).describe('Queue a page\'s rel=canonical URL when it is on the same host.'),
      })
      .strict()
      .default({ strip_params: [], keep_default_strip_list: true, sort_query: true, follow_canonical: true })
      .describe('URL normalisation (RFC 3986 plus these crawler rules).'),
    sitemaps: z.array(z.url({ protocol: /^https?$/ })).default([]).describe('Sitemap URLs read at the start of a fresh crawl (robots.txt Sitemap: lines of the seed hosts are read too).'),
    keywords: weightMap.default({}).describe('Term → weight. Negative weights push pages down. Chinese (either script) and English.'),
    relevance: z
      .object({
        threshold: z.number().min(0).max(1).default(0.3).describe('A page at or above this relevance counts as relevant.'),
        fields: z
          .object({
            title: z.number().min(0).default(3),
            headings: z.number().min(0).default(2),
            anchor: z.number().min(0).default(2),
            body: z.number().min(0).default(1),
          })
          .strict()
          .default({ title: 3, headings: 2, anchor: 2, body: 1 })
          .describe('Weight of each field of a page.'),
        model: z
          .enum(['keywords', 'bm25'])
          .default('keywords')
          .describe('Keyword scoring: "keywords" (log term counts, square-root length damping) or "bm25" (BM25F with the keyword weights as query weights).'),
        classifier: z
          .object({
            model: z.string().min(1).describe('Model JSON written by `topicrawl train`; a relative path is relative to the topic file.'),
            weight: z.number().min(0).max(1).default(1).describe('Page score = weight · classifier probability + (1 − weight) · keyword score.'),
          })
          .strict()
          .optional()
          .describe('A trained classifier (topicrawl train) that scores pages together with the keywords.'),
        feedback: z
          .object({
            after: z.number().int().min(2).max(10_000).default(100).describe('Pages scored before the terms are chosen: the first `after` pages with a score, in fetch order (each parsed again then: ~7 ms a page, on the main thread).'),
            top: z.number().int().min(1).max(1000).default(10).describe('The highest-scoring relevant pages (score ≥ threshold) whose shared terms are added.'),
            max_terms: z.number().int().min(1).max(100).default(5).describe('The most terms added to the keywords.'),
            weight: z
              .number()
              .gt(0)
              .lt(1)
              .default(0.25)
              .describe('Weight of the best added term, relative to the strongest keyword (below 1: added terms weigh less than the user\'s).'),
          })
          .strict()
          .optional()
          .describe('Pseudo-relevance feedback (Rocchio): after `after` scored pages, add up to `max_terms` terms shared by the `top` best pages to the keywords (README: "Relevance feedback"). Absent: off.'),
      })
      .strict()
      .default({ threshold: 0.3, fields: { title: 3, headings: 2, anchor: 2, body: 1 }, model: 'keywords' }),
    location: z
      .object({
        tokens: weightMap.default({}).describe('Weight of a token found in host or path (e.g. tobacco: 1, travel: -1).'),
        tld: weightMap.default({}).describe('Weight of a top-level domain (e.g. com: 0.2, net: 0.1).'),
        segment_penalty: z.number().min(0).max(1).default(0.1).describe('Subtracted per path segment.'),
      })
      .strict()
      .default({ tokens: {}, tld: {}, segment_penalty: 0.1 })
      .describe('The Location Metric IL(p): scores a URL from its string alone.'),
    strategy: z
      .object({
        name: z.string().min(1).default(DEFAULT_STRATEGY).describe(`Ordering strategy (see \`topicrawl strategies\`); default ${DEFAULT_STRATEGY}, ${SHARED_DEFAULT_STRATEGY} on a shared frontier.`),
        x: z.number().min(0).default(0.3).describe('Weight of IB, backlink importance.'),
        y: z.number().min(0).default(0.4).describe('Weight of IL, the Location Metric.'),
        z: z.number().min(0).default(0.3).describe('Weight of ID, link depth.'),
        max_life: z.number().int().min(1).max(100).default(3).describe('Fish-Search max life.'),
        delta: z.number().min(0).max(1).default(0.5).describe('shark: decay δ of the score a child inherits from its parent.'),
        beta: z.number().min(0).max(1).default(0.8).describe('shark: weight β of the anchor text against its context.'),
        gamma: z.number().min(0).max(1).default(0.5).describe('shark: weight γ of the inherited score against the anchor neighbourhood.'),
        pagerank_every: z.number().int().min(1).default(100).describe('partial-pagerank: recompute every K fetched pages.'),
        damping: z.number().gt(0).lt(1).default(0.85).describe('partial-pagerank: damping factor d.'),
        site: z.enum(['domain', 'host']).default('domain').describe('larger-sites-first: a site is a registrable domain or a host.'),
        feedback: z.number().min(0).max(1000).default(3).describe(
          "best-first, best-first-fish: pseudo-counts k of the directory yield factor (S + k)/(n + k) that multiplies a URL's priority, learnt from the pages recorded in its directory; 0 turns it off.",
        ),
        learn_every: z.number().int().min(1).default(50).describe('learning: re-rank queued URLs with the link model every K recorded pages.'),
        rescore_budget: z.number().int().min(0).default(5000).describe('learning: most queued URLs re-scored per re-ranking (0: never re-rank).'),
        explore: z.number().min(0).max(1).default(0.02).describe('learning: share of the recorded pages spent on links the model is unsure about.'),
      })
      .strict()
      .default({
        name: DEFAULT_STRATEGY, x: 0.3, y: 0.4, z: 0.3, max_life: 3, delta: 0.5, beta: 0.8, gamma: 0.5, pagerank_every: 100, damping: 0.85, site: 'domain', feedback: 3,
        learn_every: 50, rescore_budget: 5000, explore: 0.02,
      }),
    limits: z
      .object({
        max_pages: z.number().int().min(1).default(1000),
        max_pages_per_host: z.number().int().min(1).default(100_000),
        max_depth: z.number().int().min(0).default(20),
        max_bytes: z.number().int().min(1).default(10 * 1024 ** 3).describe('Total body bytes for the crawl.'),
        max_page_bytes: z.number().int().min(1024).default(5 * 1024 ** 2).describe('Body cap per page, after decompression.'),
        max_url_length: z.number().int().min(32).default(2048).describe('Longer URLs are skipped.'),
        max_repeated_segments: z.number().int().min(1).default(3).describe('A URL whose path repeats one segment more often than this is a trap.'),
        max_sitemap_urls: z.number().int().min(0).default(50_000).describe('URLs taken from sitemaps in all.'),
        max_sitemap_depth: z.number().int().min(0).max(10).default(3).describe('Sitemap index levels followed.'),
        max_links_per_page: z
          .number()
          .int()
          .min(1)
          .default(5000)
          .describe('The most links read from one page, the first in document order; the page\'s note records a cut.'),
      })
      .strict()
      .default({
        max_pages: 1000, max_pages_per_host: 100_000, max_depth: 20, max_bytes: 10 * 1024 ** 3, max_page_bytes: 5 * 1024 ** 2,
        max_url_length: 2048, max_repeated_segments: 3, max_sitemap_urls: 50_000, max_sitemap_depth: 3, max_links_per_page: 5000,
      }),
    politeness: z
      .object({
        delay_ms: z.number().int().min(0).default(1000).describe('Minimum time between two requests to one host.'),
        concurrency: z.number().int().min(1).max(1024).default(16).describe('Requests in flight in all.'),
        per_host_concurrency: z.number().int().min(1).max(64).default(1),
        user_agent: z.string().min(1).default('topicrawl/0.1 (+https://example.invalid/topicrawl)'),
        robots: z.boolean().default(true).describe('Honour robots.txt.'),
        max_crawl_delay_ms: z.number().int().min(0).default(30_000).describe('Most a robots.txt Crawl-delay may raise the delay.'),
        host_failure_limit: z.number().int().min(1).default(5).describe('Consecutive failed attempts after which a host is suspended.'),
      })
      .strict()
      .default({
        delay_ms: 1000, concurrency: 16, per_host_concurrency: 1, user_agent: 'topicrawl/0.1 (+https://example.invalid/topicrawl)', robots: true,
        max_crawl_delay_ms: 30_000, host_failure_limit: 5,
      }),
    fetch: z
      .object({
        connect_timeout_ms: z.number().int().min(1).default(10_000),
        headers_timeout_ms: z.number().int().min(1).default(15_000),
        body_timeout_ms: z.number().int().min(1).default(30_000),
        max_redirects: z.number().int().min(0).max(20).default(5),
        max_retries: z.number().int().min(0).max(10).default(2).describe('Retries of a URL after a 5xx, 429 or network error.'),
        retry_base_ms: z.number().int().min(0).default(1000).describe('Back-off before the first retry; doubles each time.'),
        max_backoff_ms: z.number().int().min(0).default(600_000).describe('Cap on back-off and on Retry-After.'),
        allow_private: z.boolean().default(false).describe('Allow connecting to private, link-local and loopback addresses (hosts mapped with --resolve or a corpus always may).'),
      })
      .strict()
      .default({
        connect_timeout_ms: 10_000, headers_timeout_ms: 15_000, body_timeout_ms: 30_000, max_redirects: 5,
        max_retries: 2, retry_base_ms: 1000, max_backoff_ms: 600_000, allow_private: false,
      }),
    dedup: z
      .object({
        enabled: z.boolean().default(true).describe('Detect near-duplicates: pages whose text SimHash is within max_distance bits of a page fetched before.'),
        max_distance: z
          .number()
          .int()
          .min(0)
          .max(MAX_INDEX_DISTANCE)
          .default(3)
          .describe('Largest Hamming distance between two 64-bit SimHashes that makes a near-duplicate (3: Manku et al., WWW 2007).'),
        follow_links: z.boolean().default(true).describe('Follow the links of a near-duplicate (an exact duplicate\'s links are never followed again).'),
      })
      .strict()
      .default({ enabled: true, max_distance: 3, follow_links: true })
      .describe('Near-duplicate pages: recorded with the page they duplicate; they count in no harvest.'),
    training: z
      .object({
        corpus: z.string().min(1).optional().describe('A labelled corpus folder (corpus.json, site/, labels.tsv); relative to the topic file.'),
        label: z.string().min(1).optional().describe('The corpus label that marks a training page as relevant (default: evaluation.label).'),
        examples: z
          .array(
            z
              .object({
                file: z.string().min(1).describe('An HTML file, relative to the topic file.'),
                relevant: z.boolean().describe('Whether the page is on-topic.'),
                url: z.url({ protocol: /^https?$/ }).optional().describe('The page\'s URL, for the URL features (optional).'),
              })
              .strict(),
          )
          .default([])
          .describe('Labelled example pages.'),
      })
      .strict()
      .optional()
      .describe('Labelled pages for `topicrawl train` (a corpus, examples, or both).'),
    revisit: z
      .object({
        classes: z
          .array(
            z
              .object({
                name: z.string().min(1).describe('Class name: home, list, content, product, or your own.'),
                patterns: z.array(z.string().min(1)).default([]).describe('Regular expressions tested (case-insensitively) on the whole URL; the first class with a match wins.'),
                initial_ms: z.number().int().min(1).describe('Revisit interval until the page has min_checks checks (ms).'),
                min_ms: z.number().int().min(1).describe('Shortest revisit interval (ms).'),
                max_ms: z.number().int().min(1).describe('Longest revisit interval (ms); also for pages that change too fast for the budget, or never.'),
              })
              .strict(),
          )
          .default(() => DEFAULT_REVISIT_CLASSES.map((c) => ({ ...c, patterns: [...c.patterns] })))
          .describe('URL classes in match order. A URL no pattern matches is "home" (host root or /index.*), "list" (many links per word) or "content".'),
        budget_per_day: z.number().positive().default(10_000).describe('Revisits per day in all; the adaptive schedule (Cho & Garcia-Molina) shares them out for the best average freshness.'),
        min_checks: z.number().int().min(1).default(3).describe('Checks before a page\'s own change rate sets its interval (before: the class\'s initial_ms).'),
        max_failures: z.number().int().min(1).default(3).describe('Consecutive failed revisits after which a page is marked deleted (404 and 410 mark it at once).'),
        sitemap_interval_ms: z.number().int().min(0).default(21_600_000).describe('How often recrawl reads the sitemaps of the hosts it revisits (robots.txt Sitemap: lines and the topic\'s sitemaps:): a page whose <lastmod> is later than its last check is revisited at once. 0: never.'),
      })
      .strict()
      .default(() => ({
        classes: DEFAULT_REVISIT_CLASSES.map((c) => ({ ...c, patterns: [...c.patterns] })), budget_per_day: 10_000, min_checks: 3, max_failures: 3,
        sitemap_interval_ms: 21_600_000,
      }))
      .describe('Revisiting fetched pages (topicrawl recrawl, crawl --revisit): URL classes, intervals and the check budget.'),
    evaluation: z
      .object({
        label: z.string().min(1).optional().describe('Corpus label that marks a page as truly on-topic.'),
      })
      .strict()
      .default({}),
  })
  .strict();

/** A topic as written (defaults applied). */
export type Topic = z.infer<typeof TopicSchema>;
/** What a topic file may contain before defaults. */
export type TopicInput = z.input<typeof TopicSchema>;
