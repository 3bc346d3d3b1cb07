/**
 * The crawl's language detector: Google's CLD2 through the `cld` package (2.10.1, a native module
 * built at install). Chosen over tinyld and franc-min by scripts/bench-language.ts (README,
 * "Language"): the most accurate on English, Chinese (both scripts, and behind an English
 * navigation bar) and 11 other languages, and about 14 times cheaper than franc-min per page. Common
 * Crawl labels its pages' languages with CLD2 too.
 *
 * The package's JavaScript offers only an asynchronous call (on libuv's thread pool); page
 * analysis is synchronous, in worker threads, so this calls the binding's own synchronous
 * `detect` (the one the package wraps; same arguments), pinned by the exact version.
 *
 * Sample: at most {@link SAMPLE_CHARS} characters from the middle of the text (where a page's own
 * content is, rather than its header's navigation or its footer); CLD2 reads it as plain text.
 * Its answer: the language with the most text; "un" (unknown) or no language is null; a region or
 * script suffix is dropped (`zh-Hant` → `zh`).
 */
import { createRequire } from 'node:module';
import type { LanguageDetector } from './language-detector.js';

/**
 * Characters of a page's text given to CLD2. 500, not 1,000 as before: the same answers on the
 * language benchmark's pages (`scripts/bench-language.ts`: 99.0% of WebKB's English pages, every
 * Chinese and other-language sample, at the middle 500 as at the middle 1,000; 98.7% at 300), and
 * a page's whole analysis a few percent cheaper at most (`scripts/bench-analysis-ab.ts`: medians
 * 0.95–0.96, best rounds 0.95–1.02): CLD2's tables miss the CPU's caches between pages, so its cost
 * in a crawl is some 3 times its cost in a loop of calls (README, "Languages").
 */
export const SAMPLE_CHARS = 500;

interface CldResult {
  languages: { code: string; percent: number }[];
}

type CldBinding = {
  detect: (text: string, plainText: boolean, languageHint: string, encodingHint: string, tldHint: string, httpHint: string, bestEffort: boolean) => CldResult;
};

let binding: CldBinding | null = null;

function cld(): CldBinding {
  if (!binding) {
    const b = createRequire(import.meta.url)('cld/build/Release/cld.node') as Partial<CldBinding>;
    if (typeof b.detect !== 'function') throw new Error('the cld package has no synchronous detect (expected cld 2.10.1)');
    binding = b as CldBinding;
  }
  return binding;
}

/** The middle {@link SAMPLE_CHARS} characters of a text (all of a shorter one), never cutting a surrogate pair. */
export function languageSample(text: string, max = SAMPLE_CHARS): string {
  if (text.length <= max) return text;
  let start = Math.floor((text.length - max) / 2);
  const c = text.charCodeAt(start);
  if (c >= 0xdc00 && c <= 0xdfff) start++;
  let end = start + max;
  const d = text.charCodeAt(end - 1);
  if (d >= 0xd800 && d <= 0xdbff) end--;
  return text.slice(start, end);
}

export class CldDetector implements LanguageDetector {
  readonly name = 'cld 2.10.1';
  private readonly b = cld();

  detect(text: string): string | null {
    const sample = languageSample(text);
    if (sample.trim().length === 0) return null;
    let r: CldResult;
    try {
      r = this.b.detect(sample, true, '', '', '', '', false);
    } catch {
      return null;
    }
    const code = r.languages[0]?.code?.toLowerCase().split('-')[0];
    return !code || code === 'un' || code === 'xxx' ? null : code;
  }
}
