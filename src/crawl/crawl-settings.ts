import type { FetcherOptions } from '../fetch/fetcher.js';
import type { Config } from '../topic/config.js';
import type { CrawlerOptions } from './crawl-types.js';
import type { RetrySettings } from './retry-policy.js';
import type { NormalizeOptions } from '../url/normalize.js';
import { createScope, type ScopeDecision, type ScopeOptions } from '../url/scope.js';
import type { AnalysisConfig } from './page-analysis.js';
import { createPageScorer, memoScoreText } from './page-scorer.js';
import { loadModelFile } from '../relevance/logistic-model.js';
import { DEFAULT_SHINGLES } from '../dedup/shingle-options.js';
import { withFeedbackKeywords, type FeedbackRecord } from './relevance-feedback.js';
import { LookupGate } from './lookup-gate.js';
import type { ProcessorDeps } from './page-processor.js';

/** The URL rules of a configuration (topic `url:`), as normalizeUrl options. */
export function normalizeOptions(cfg: Config): NormalizeOptions {
  return { stripParams: [...cfg.url.strip_params], keepDefaultStripList: cfg.url.keep_default_strip_list, sortQuery: cfg.url.sort_query };
}

/** Scope options from the topic's `scope` and `limits` (URL length, traps, repeated segments). */
export function scopeOptions(cfg: Config): ScopeOptions {
  return { maxUrlLength: cfg.limits.max_url_length, excludeTraps: cfg.scope.exclude_traps, maxRepeatedSegments: cfg.limits.max_repeated_segments };
}

export function scopeOf(cfg: Config): (url: string) => ScopeDecision {
  return createScope(cfg.scope, scopeOptions(cfg));
}

/**
 * The slice page analysis gets: plain data, since it crosses to worker threads. Reads the classifier
 * model file when one is configured: a missing or invalid file throws E_CONFIG here, before a crawl.
 */
export function analysisConfig(cfg: Config): AnalysisConfig {
  const classifier = cfg.relevance.classifier;
  return {
    keywords: { ...cfg.keywords },
    fields: { ...cfg.relevance.fields },
    model: cfg.relevance.model,
    classifier: classifier ? { model: loadModelFile(classifier.model), weight: classifier.weight } : null,
    scope: { hosts: [...cfg.scope.hosts], include: [...cfg.scope.include], exclude: [...cfg.scope.exclude] },
    scopeOptions: scopeOptions(cfg),
    normalize: normalizeOptions(cfg),
    followCanonical: cfg.url.follow_canonical,
    maxLinksPerPage: cfg.limits.max_links_per_page,
    simhash: cfg.dedup.enabled ? DEFAULT_SHINGLES : null,
    language: true,
    location: structuredClone(cfg.location),
  };
}

/** The fetcher's slice: timeouts, body cap, user agent, host map, address policy; the wire kept when a hook wants it. */
export function fetcherOptions(cfg: Config, opts: Pick<CrawlerOptions, 'resolve' | 'mappedOnly' | 'hooks'>): FetcherOptions {
  return {
    userAgent: cfg.politeness.user_agent,
    connectTimeoutMs: cfg.fetch.connect_timeout_ms,
    headersTimeoutMs: cfg.fetch.headers_timeout_ms,
    bodyTimeoutMs: cfg.fetch.body_timeout_ms,
    maxPageBytes: cfg.limits.max_page_bytes,
    // as many connections to an origin as requests the crawl sends it at once: with 1 (the default)
    // undici keeps a Client per origin rather than a Pool, whose request queue takes 16 KB up front
    // (15 MB of a 20,000-page crawl's heap on 1,000 hosts)
    connectionsPerOrigin: cfg.politeness.per_host_concurrency,
    resolve: opts.resolve,
    mappedOnly: opts.mappedOnly,
    allowPrivate: cfg.fetch.allow_private,
    keepWire: opts.hooks?.some((h) => h.wantsWire) ?? false,
  };
}

export function retrySettings(cfg: Config): RetrySettings {
  return {
    maxRetries: cfg.fetch.max_retries, baseMs: cfg.fetch.retry_base_ms, maxBackoffMs: cfg.fetch.max_backoff_ms,
    hostFailureLimit: cfg.politeness.host_failure_limit,
  };
}

/**
 * The page scorer's `scoreText` for a configuration, as page analysis uses it (memoised), built on
 * first use: strategies that rebuild link scores on resume call it (ResumeState.scoreText). With
 * `feedback` (the terms relevance feedback added, while the topic asks for it), the keywords include them.
 */
export function lazyScoreText(cfg: Config, feedback: FeedbackRecord | null = null): (text: string) => number {
  let fn: ((text: string) => number) | null = null;
  const keywords = cfg.relevance.feedback ? withFeedbackKeywords(cfg.keywords, feedback) : cfg.keywords;
  return (text) => (fn ??= memoScoreText(createPageScorer({ ...analysisConfig(cfg), keywords })))(text);
}

/** What the page pipeline needs (processFetch): the crawl's parts, and the settings it reads from the configuration. */
export function processorDeps(
  cfg: Config, parts: Pick<ProcessorDeps, 'store' | 'frontier' | 'analyzers' | 'strategy' | 'scope' | 'serial' | 'timing'>,
): ProcessorDeps {
  return {
    ...parts,
    threshold: cfg.relevance.threshold, maxDepth: cfg.limits.max_depth, maxRedirects: cfg.fetch.max_redirects,
    normalize: normalizeOptions(cfg), lookups: new LookupGate(),
    nearDups: null, // filled from the crawl file when it is open (Crawler.open)
    followDuplicateLinks: cfg.dedup.follow_links,
    languages: cfg.scope.languages.length ? new Set(cfg.scope.languages) : null,
  };
}
