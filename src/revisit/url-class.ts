import { TopicrawlError } from '../errors.js';
import { DEFAULT_REVISIT_CLASSES } from './default-classes.js';
import type { RevisitClassConfig } from './revisit-policy.js';

/**
 * A page's URL class (seed 001 §2.5, seed 002): home page, list/index page, content page,
 * product page, or a class the topic defines. The class sets the revisit interval bounds.
 */

/** The built-in class names; topics may add their own. */
export type UrlClassName = 'home' | 'list' | 'content' | 'product';

/** What the page features rule needs from a parsed page. */
export interface PageShape {
  /** Links found on the page. */
  links: number;
  /** Words of visible text (anchor texts included). */
  textWords: number;
}

/** A page with at least this many links … */
export const LIST_MIN_LINKS = 20;
/** … and at least this many links per word of text is a list page. */
export const LIST_LINKS_PER_WORD = 0.2;

const compiled = new WeakMap<readonly RevisitClassConfig[], RegExp[][]>();

function compile(classes: readonly RevisitClassConfig[]): RegExp[][] {
  let out = compiled.get(classes);
  if (out) return out;
  out = classes.map((c) =>
    c.patterns.map((p) => {
      try {
        return new RegExp(p, 'i');
      } catch (err) {
        throw new TopicrawlError('E_CONFIG', `revisit.classes: class ${c.name}: invalid pattern ${JSON.stringify(p)}`, { key: 'revisit.classes', pattern: p }, { cause: err });
      }
    }),
  );
  compiled.set(classes, out);
  return out;
}

/** True for a host root (`/`, optionally with a query) or a root `/index.*` page. */
export function isHomeUrl(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  return u.pathname === '/' || /^\/index\.[a-z0-9]+$/i.test(u.pathname);
}

/** True when a page has many links per word of text (see {@link LIST_MIN_LINKS}, {@link LIST_LINKS_PER_WORD}). */
export function looksLikeList(features: PageShape): boolean {
  return features.links >= LIST_MIN_LINKS && features.links >= LIST_LINKS_PER_WORD * Math.max(features.textWords, 1);
}

/**
 * The class of a page: the first class (in the topic's order) with a pattern matching the URL;
 * else from the URL's shape and the page's features: 'home' for a host root or `/index.*`, 'list'
 * when the page has many links per word of text (features null: not known yet, e.g. before the
 * first fetch); else 'content'. Throws E_CONFIG for an invalid pattern. The name returned may
 * not be one of `classes` (e.g. 'list' when the topic has no list class): {@link classConfigFor}
 * resolves it.
 */
export function classifyPage(
  url: string,
  features: { links: number; textWords: number } | null,
  classes: readonly RevisitClassConfig[],
): string {
  const regexes = compile(classes);
  for (let i = 0; i < classes.length; i++) {
    if (regexes[i].some((re) => re.test(url))) return classes[i].name;
  }
  if (isHomeUrl(url)) return 'home';
  if (features && looksLikeList(features)) return 'list';
  return 'content';
}

/**
 * The configuration of class `name`: the topic's class of that name, else the built-in class of
 * that name, else the topic's 'content' class, else the built-in 'content'.
 */
export function classConfigFor(name: string, classes: readonly RevisitClassConfig[]): RevisitClassConfig {
  const builtIn = (n: string) => DEFAULT_REVISIT_CLASSES.find((c) => c.name === n);
  return classes.find((c) => c.name === name) ?? builtIn(name) ?? classes.find((c) => c.name === 'content') ?? builtIn('content')!;
}
