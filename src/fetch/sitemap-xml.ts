import { SaxesParser, type SaxesTagPlain } from 'saxes';

/**
 * The XML side of the sitemap parser: a streaming saxes pass that recognises a sitemaps.org
 * `<urlset>` or `<sitemapindex>`, an RSS 2.0 / RSS 1.0 (RDF) feed or an Atom feed, and hands each
 * entry's candidate locations to a sink. Names are matched by local name, case-insensitively, with
 * any namespace prefix or URI (sitemaps in the wrong namespace are common). saxes does no DTD
 * processing: entities declared in a DOCTYPE (internal or external) are never expanded or fetched;
 * a reference to one is a recorded error and the field it appears in is dropped. Only the five
 * predefined entities and numeric character references are decoded. Parsing continues after an
 * error (saxes recovers), so what comes before and after a fault is kept.
 */

/** Kind of document, from its root element. */
export type XmlSitemapKind = 'urlset' | 'index' | 'rss' | 'atom' | 'unknown';

/**
 * Receives entries in document order. `candidates` are raw location strings, best first (the sink
 * takes the first that is a valid URL). Returns false when it is full: parsing then stops.
 */
export interface EntrySink {
  add(kind: XmlSitemapKind, candidates: string[], lastmod: string | null): boolean;
}

export interface XmlPassResult {
  kind: XmlSitemapKind;
  errors: string[];
}

const MAX_ERRORS = 20;
/** Past this many errors the input is not XML worth reading: parsing stops. */
const GIVE_UP_ERRORS = 1000;
/** Longest field text kept; longer text marks the field bad (no URL is that long). */
const MAX_FIELD_CHARS = 64 * 1024;
const CHUNK_CHARS = 64 * 1024;

const ROOTS: Record<string, XmlSitemapKind> = { urlset: 'urlset', sitemapindex: 'index', rss: 'rss', rdf: 'rss', feed: 'atom' };
const ENTRY: Record<XmlSitemapKind, string> = { urlset: 'url', index: 'sitemap', rss: 'item', atom: 'entry', unknown: '' };
/** Child element (local name) → field, per kind. The first non-empty value of a field wins. */
const FIELDS: Record<XmlSitemapKind, Record<string, string>> = {
  urlset: { loc: 'loc', lastmod: 'lastmod' },
  index: { loc: 'loc', lastmod: 'lastmod' },
  rss: { link: 'link', guid: 'guid', pubdate: 'lastmod', date: 'date', updated: 'date' },
  atom: { updated: 'lastmod', published: 'date' },
  unknown: {},
};

interface Entry {
  depth: number;
  fields: Map<string, string>;
  /** Text directly inside the entry element (used as the location when there is no `<loc>`). */
  direct: string;
  atomHref: string | null;
  /** A structural error happened inside the entry: it is dropped. */
  bad: boolean;
}

interface Capture {
  field: string;
  depth: number;
  text: string;
  bad: boolean;
}

/** A CDATA section (left alone) or an `&` that does not start a reference (`&name;`, `&#…;`). */
const BARE_AMP = /<!\[CDATA\[[\s\S]*?\]\]>|&(?!(?:#[0-9]+|#x[0-9a-fA-F]+|[A-Za-z_:][\w.:-]*);)/g;

/**
 * Escapes bare `&` (common in real sitemaps: `?a=1&b=2`) as `&amp;`. saxes would otherwise read
 * everything up to the next `;` as an entity name and lose the rest of the document.
 */
export function escapeBareAmpersands(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(BARE_AMP, (m) => (m === '&' ? '&amp;' : m));
}

function localName(name: string): string {
  const i = name.lastIndexOf(':');
  return (i >= 0 ? name.slice(i + 1) : name).toLowerCase();
}

/** Runs the XML pass over `text`, feeding `sink`. Never throws. */
export function parseXmlEntries(text: string, sink: EntrySink): XmlPassResult {
  const errors: string[] = [];
  let errorCount = 0;
  let kind: XmlSitemapKind | null = null;
  let stopped = false;
  let depth = 0;
  let entry: Entry | null = null;
  let capture: Capture | null = null;
  let closing = false;

  const parser = new SaxesParser({ xmlns: false, position: true });

  const note = (message: string): void => {
    errorCount++;
    if (errors.length < MAX_ERRORS) errors.push(message);
  };

  const finishEntry = (e: Entry): void => {
    if (e.bad) return;
    const k = kind as XmlSitemapKind;
    const f = e.fields;
    const candidates: string[] = [];
    const push = (v: string | null | undefined): void => {
      if (v) candidates.push(v);
    };
    if (k === 'rss') {
      push(f.get('link'));
      push(f.get('guid'));
    } else if (k === 'atom') {
      push(e.atomHref);
    } else {
      push(f.get('loc'));
      if (candidates.length === 0) push(e.direct.trim());
    }
    if (candidates.length === 0) return;
    if (!sink.add(k, candidates, f.get('lastmod') ?? f.get('date') ?? null)) stopped = true;
  };

  parser.on('error', (err) => {
    note(err.message);
    // An error inside a field spoils the field; a structural one elsewhere in an entry spoils the entry
    // (saxes reports a mismatched end tag after it has closed the field).
    if (capture) capture.bad = true;
    else if (entry && !closing && !/entity/i.test(err.message)) entry.bad = true;
    if (errorCount >= GIVE_UP_ERRORS) {
      stopped = true;
      errors.push(`too many XML errors: gave up after ${GIVE_UP_ERRORS}`);
    }
  });

  parser.on('opentag', (tag: SaxesTagPlain) => {
    depth++;
    if (stopped) return;
    const name = localName(tag.name);
    if (kind === null) {
      kind = Object.hasOwn(ROOTS, name) ? ROOTS[name] : 'unknown';
      if (kind === 'unknown') {
        note(`not a sitemap or feed: root element <${tag.name}>`);
        stopped = true;
      }
      return;
    }
    if (!entry) {
      // Sitemap and Atom entries are children of the root; RSS items sit in <channel> (2.0) or the root (1.0).
      if (name === ENTRY[kind] && (kind === 'rss' || depth === 2)) {
        entry = { depth, fields: new Map(), direct: '', atomHref: null, bad: false };
      }
      return;
    }
    if (depth !== entry.depth + 1 || capture) return;
    if (kind === 'atom' && name === 'link' && entry.atomHref === null) {
      const rel = (tag.attributes.rel ?? 'alternate').trim().toLowerCase();
      const href = tag.attributes.href?.trim();
      if (href && rel === 'alternate') entry.atomHref = href;
    }
    const field = Object.hasOwn(FIELDS[kind], name) ? FIELDS[kind][name] : undefined;
    if (field && !entry.fields.has(field)) capture = { field, depth, text: '', bad: false };
  });

  const onText = (t: string): void => {
    if (stopped) return;
    if (capture) {
      if (capture.text.length + t.length > MAX_FIELD_CHARS) capture.bad = true;
      else capture.text += t;
    } else if (entry && depth === entry.depth && entry.direct.length + t.length <= MAX_FIELD_CHARS) {
      entry.direct += t;
    }
  };
  parser.on('text', onText);
  parser.on('cdata', onText);

  parser.on('closetag', () => {
    if (!stopped) {
      if (capture && depth === capture.depth) {
        const value = capture.text.trim();
        if (!capture.bad && value && entry) entry.fields.set(capture.field, value);
        capture = null;
      } else if (entry && depth === entry.depth) {
        const e = entry;
        entry = null;
        capture = null;
        finishEntry(e);
      }
    }
    depth--;
  });

  text = escapeBareAmpersands(text);
  try {
    for (let i = 0; i < text.length && !stopped; ) {
      let end = Math.min(text.length, i + CHUNK_CHARS);
      const last = text.charCodeAt(end - 1);
      if (last >= 0xd800 && last <= 0xdbff && end < text.length) end++; // keep surrogate pairs whole
      parser.write(text.slice(i, end));
      i = end;
    }
    closing = true; // errors from here are about the end of input (unclosed tags), not an entry's content
    if (!stopped) parser.close();
  } catch (err) {
    note(`XML: ${(err as Error).message}`);
  }
  // A document cut inside an entry (size cap, truncated download): keep the entry if a field was complete.
  const pending = entry as Entry | null;
  if (!stopped && pending && (pending.fields.size > 0 || pending.atomHref !== null)) finishEntry(pending);
  const hidden = errorCount - Math.min(errorCount, MAX_ERRORS);
  if (hidden > 0) errors.push(`… and ${hidden} more XML errors`);
  if (kind === null) {
    kind = 'unknown';
    if (errors.length === 0) errors.push('not a sitemap: no root element');
  }
  return { kind, errors };
}
