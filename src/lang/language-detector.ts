/**
 * Tells the language of a page's text.
 *
 * Contract: {@link LanguageDetector.detect} is synchronous, pure (the same text gives the same
 * answer) and never throws on any string; it returns a lower-case ISO 639-1 code (`zh`, `en`,
 * `fr`, …; a language without one keeps its ISO 639-3 code) or null when the text does not tell
 * (too little of it, only digits and symbols). Chinese in either script is `zh`. It looks at a
 * bounded sample of the text, so its cost per page is bounded whatever the page's size.
 */
export interface LanguageDetector {
  /** The detector, for reports (e.g. "cld 2.10.1"). */
  readonly name: string;
  detect(text: string): string | null;
}
