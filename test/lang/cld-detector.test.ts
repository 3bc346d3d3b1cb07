import { describe, expect, it } from 'vitest';
import { CldDetector, languageSample, SAMPLE_CHARS } from '../../src/lang/cld-detector.js';

/** Short texts written for this test (no source). */
const TEXTS: Record<string, string> = {
  en: 'The committee published its annual report on the state of the river on Tuesday, and the water is cleaner than it has been for twenty years.',
  zh: '委员会周二发布了关于这条河流状况的年度报告，河水比二十年来任何时候都更加清澈，附近的居民也重新开始在河边散步。',
  'zh (traditional)': '委員會週二發布了關於這條河流狀況的年度報告，河水比二十年來任何時候都更加清澈，附近的居民也重新開始在河邊散步。',
  fr: "Le comité a publié mardi son rapport annuel sur l'état de la rivière, et l'eau est plus propre qu'elle ne l'a été depuis vingt ans.",
  ja: '委員会は火曜日に川の状態に関する年次報告書を発表し、川の水はこの二十年で最もきれいになったと述べました。',
  de: 'Der Ausschuss hat am Dienstag seinen Jahresbericht über den Zustand des Flusses veröffentlicht, und das Wasser ist so sauber wie seit zwanzig Jahren nicht.',
};

describe('CldDetector', () => {
  const d = new CldDetector();
  it('tells Chinese (either script), English and other languages apart, as ISO 639-1 codes', () => {
    expect(d.detect(TEXTS.en)).toBe('en');
    expect(d.detect(TEXTS.zh)).toBe('zh');
    expect(d.detect(TEXTS['zh (traditional)'])).toBe('zh');
    expect(d.detect(TEXTS.fr)).toBe('fr');
    expect(d.detect(TEXTS.ja)).toBe('ja');
    expect(d.detect(TEXTS.de)).toBe('de');
    // a Chinese page behind an English menu is Chinese
    expect(d.detect(`Home | News | About us | Contact\n${TEXTS.zh}${TEXTS.zh}`)).toBe('zh');
  });

  it('says null when the text does not tell, and never throws', () => {
    expect(d.detect('')).toBeNull();
    expect(d.detect('   \n ')).toBeNull();
    expect(d.detect('12345 67890 !!! ###')).toBeNull();
    expect(() => d.detect('\u0000\uffff\ud800 broken surrogate')).not.toThrow();
  });

  it('looks at the middle of a long text, never cutting a surrogate pair', () => {
    const long = `${'a'.repeat(5000)}MIDDLE${'b'.repeat(5000)}`;
    const s = languageSample(long);
    expect(s.length).toBe(SAMPLE_CHARS);
    expect(s).toContain('MIDDLE');
    expect(languageSample('short')).toBe('short');
    const astral = '𠀀'.repeat(4000); // each a surrogate pair
    const cut = languageSample(astral);
    expect(cut.length % 2).toBe(0);
    expect([...cut].every((c) => c === '𠀀')).toBe(true);
  });
});
