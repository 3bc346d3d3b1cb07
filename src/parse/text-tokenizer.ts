/**
 * parse5's tokenizer, reading text a run at a time instead of a code point at a time.
 *
 * parse5 reads every character of a page through its preprocessor's `advance`, its state switch,
 * the text state and `_emitCodePoint`, which extends the pending run of input. It also ends a
 * character token wherever text turns into whitespace or back, so each word of a page is a token
 * of its own, passed through the tree builder and the tree adapter. This subclass changes two
 * things, for the crawl's parser only (html-parser.ts builds its parse5 `Parser` with it):
 *
 * 1. **Runs.** When a text state (data, RCDATA, raw text, script data, quoted attribute values)
 *    has taken a character that extends the pending run, the characters after it that would take
 *    exactly the same path are taken at once, by moving the read position past them: those that
 *    `advance` returns as they are and reports nothing about, and that the state treats as it
 *    treated this one (see {@link plain} and {@link blank}). Same tokens, same tree.
 * 2. **Words with the spaces between them.** In the text states, while the tree builder inserts
 *    text and whitespace alike (in body, cell, caption, template and select, and the text of
 *    script, style, title and textarea; outside foreign content; not in tables, where text is
 *    foster-parented and whitespace is not), a character token goes on across whitespace (line
 *    breaks too) up to the last word before markup, a reference, or the end of the input read so
 *    far; whitespace after that word is read as before. The token holds exactly the characters of
 *    the word and whitespace tokens it replaces, and they would all have gone into the same text
 *    node: the tree is parse5's. (The crawl's adapter then holds that whitespace as it came, for
 *    `collapseNode`: text-adapter.ts.)
 *
 * The preprocessor's line count follows the line breaks skipped, as `advance` would count them.
 * Checked against parse5's own tokenizer on generated markup, whole and in pieces
 * (test/parse/text-tokenizer.test.ts), and on every page of the synthetic and WebKB corpora.
 * Written for parse5 8.1.1 (pinned in package.json): it uses members parse5 declares protected or
 * internal.
 */
import { Parser, Tokenizer, TokenizerMode } from 'parse5';
import type { DefaultTreeAdapterMap, TreeAdapter } from 'parse5';

const LT = 0x3c;
const AMP = 0x26;
const QUOTE = 0x22;
const APOS = 0x27;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const FORM_FEED = 0x0c;
const CR = 0x0d;

/**
 * A code point `advance` returns as it is and reports nothing about, that is no HTML whitespace,
 * and that no text state treats specially (`<`, `&`; NUL is a control; a quoted attribute value
 * also stops at its quote): printable ASCII and the BMP above the C1 controls, short of the
 * surrogates and the noncharacters.
 */
function plain(c: number): boolean {
  return c < 0x7f ? c > SPACE && c !== LT && c !== AMP : c > 0x9f && (c < 0xd800 || (c > 0xdfff && c < 0xfdd0));
}

/** HTML whitespace that `advance` returns as it is (a line break counts a line: not these). */
function blank(c: number): boolean {
  return c === SPACE || c === TAB || c === FORM_FEED;
}

/**
 * parse5's insertion modes (its parser's `InsertionMode`, not exported) in which a character token
 * and a whitespace token are inserted the same way: IN_BODY 6, TEXT 7 (the text of script, style,
 * title, textarea, …), IN_CAPTION 10, IN_CELL 14, IN_SELECT 15, IN_SELECT_IN_TABLE 16, IN_TEMPLATE 17.
 */
const WORDS_MODES = new Set([6, 7, 10, 14, 15, 16, 17]);

/** The parser's members read here (parse5 8.1.1: internal). */
interface ParserState {
  insertionMode: number;
}

/** {@link Tokenizer} reading text by runs (see the file header). */
export class TextTokenizer extends Tokenizer {
  protected override _stateData(cp: number): void {
    if (plain(cp) || blank(cp)) this.text(cp, TokenizerMode.DATA);
    else super._stateData(cp);
  }

  protected override _stateRcdata(cp: number): void {
    if (plain(cp) || blank(cp)) this.text(cp, TokenizerMode.RCDATA);
    else super._stateRcdata(cp);
  }

  protected override _stateRawtext(cp: number): void {
    if (plain(cp) || blank(cp)) this.text(cp, TokenizerMode.RAWTEXT);
    else super._stateRawtext(cp);
  }

  protected override _stateScriptData(cp: number): void {
    if (plain(cp) || blank(cp)) this.text(cp, TokenizerMode.SCRIPT_DATA);
    else super._stateScriptData(cp);
  }

  protected override _stateAttributeValueDoubleQuoted(cp: number): void {
    if ((!plain(cp) && !blank(cp)) || cp === QUOTE) return super._stateAttributeValueDoubleQuoted(cp);
    const state = this.state;
    this._extendRun(cp);
    if (this.ahead(state)) this.takeRun(plain(cp), QUOTE);
  }

  protected override _stateAttributeValueSingleQuoted(cp: number): void {
    if ((!plain(cp) && !blank(cp)) || cp === APOS) return super._stateAttributeValueSingleQuoted(cp);
    const state = this.state;
    this._extendRun(cp);
    if (this.ahead(state)) this.takeRun(plain(cp), APOS);
  }

  /** A text state's plain or blank code point: emitted as the state's default branch does, then the rest of its run or words. */
  private text(cp: number, state: number): void {
    this._emitCodePoint(cp);
    if (!this.ahead(state)) return;
    if (!plain(cp)) this.takeRun(false, 0);
    else if (!this.inForeignNode && WORDS_MODES.has((this.handler as unknown as ParserState).insertionMode)) this.takeWords();
    else this.takeRun(true, 0);
  }

  /** Whether the run may go on at once: still in `state`, reading, and without source locations. */
  private ahead(state: number): boolean {
    return this.state === state && this.active && !this.paused && !this.options.sourceCodeLocationInfo && this.runEnd === this.preprocessor.pos + 1;
  }

  /** Takes the code points after the current one that are plain (`plainRun`) or blank, like it, up to `quote` (0: none). */
  private takeRun(plainRun: boolean, quote: number): void {
    const p = this.preprocessor;
    const html = p.html;
    const n = html.length;
    let j = p.pos + 1;
    if (plainRun) {
      for (let c = html.charCodeAt(j); j < n && plain(c) && c !== quote; c = html.charCodeAt(++j));
    } else while (j < n && blank(html.charCodeAt(j))) j++;
    p.pos = j - 1;
    this.runEnd = j;
  }

  /**
   * Takes the words and whitespace after the current (plain) code point, up to the last plain code
   * point before anything else or the end of the input: whitespace after it is left to be read
   * as before. A carriage return goes into the token as a line feed, and a line feed after it not
   * at all, as `advance` reads them; line breaks are counted as it counts them (CR LF is one).
   */
  private takeWords(): void {
    const p = this.preprocessor;
    const html = p.html;
    const n = html.length;
    let j = p.pos + 1;
    let end = j;
    let breaks = 0;
    let lineStart = -1;
    let takenBreaks = 0;
    let takenLineStart = -1;
    let cr = -1; // the first carriage return, when one is taken
    let firstCr = -1;
    while (j < n) {
      const c = html.charCodeAt(j);
      if (plain(c)) {
        end = ++j;
        takenBreaks = breaks;
        takenLineStart = lineStart;
        cr = firstCr;
      } else if (blank(c)) j++;
      else if (c === LF || c === CR) {
        if (c === CR && firstCr < 0) firstCr = j;
        j++;
        if (c === CR && j < n && html.charCodeAt(j) === LF) j++;
        breaks++;
        lineStart = j;
      } else break;
    }
    if (cr >= 0) this.takeCarriageReturns(cr, end);
    p.pos = end - 1;
    this.runEnd = end;
    if (takenBreaks > 0) {
      p.line += takenBreaks;
      (p as unknown as { lineStartPos: number }).lineStartPos = takenLineStart;
    }
  }

  /** The run up to `end` with each CR from `from` on read as LF, and the LF of a CR LF dropped. */
  private takeCarriageReturns(from: number, end: number): void {
    const html = this.preprocessor.html;
    for (let i = from; i < end; i++) {
      if (html.charCodeAt(i) !== CR) continue;
      this.runEnd = i;
      this._flushRun('\n');
      const next = html.charCodeAt(i + 1) === LF ? i + 2 : i + 1;
      this.runStart = next;
      this.runEnd = next;
    }
  }
}

/** A parse5 parser for one document whose tokenizer is a {@link TextTokenizer}. */
export function textParser(treeAdapter: TreeAdapter<DefaultTreeAdapterMap>): Parser<DefaultTreeAdapterMap> {
  const parser = new Parser<DefaultTreeAdapterMap>({ treeAdapter });
  const internals = parser as unknown as { tokenizer: Tokenizer; options: ConstructorParameters<typeof Tokenizer>[0] };
  internals.tokenizer = new TextTokenizer(internals.options, parser);
  return parser;
}
