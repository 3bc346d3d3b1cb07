import { describe, expect, it } from 'vitest';
import iconv from 'iconv-lite';
import { decodeHtml, looksLikeGb, resolveCharset, sniffMetaCharset } from '../../src/fetch/charset.js';

const zh = '烟草行业资讯：中国烟草总公司发布年度报告，卷烟销量稳定增长。';
const html = (body: string, head = '') => `<!doctype html><html><head>${head}<title>t</title></head><body>${body}</body></html>`;

describe('decodeHtml', () => {
  it('decodes GBK declared in the header (and as gb2312 / x-gbk)', () => {
    const bytes = iconv.encode(html(zh), 'gbk');
    for (const label of ['GBK', 'gb2312', 'x-gbk', '"GB2312"']) {
      const r = decodeHtml(bytes, `text/html; charset=${label}`);
      expect(r.text).toContain(zh);
      expect(r.source).toBe('header');
      expect(r.charset).toBe('gb18030');
    }
  });

  it('decodes GB18030 four-byte characters even when the page says gb2312', () => {
    const text = zh + '𠀀㐀€';
    const bytes = iconv.encode(html(text), 'gb18030');
    expect(decodeHtml(bytes, 'text/html; charset=gb2312').text).toContain(text);
  });

  it('decodes Big5 (and Big5-HKSCS) from <meta http-equiv>', () => {
    const tw = '菸草產業新聞：臺灣菸酒公司';
    const bytes = Buffer.concat([
      iconv.encode(html(tw, '<meta http-equiv="Content-Type" content="text/html; charset=big5">'), 'big5'),
      Buffer.from([0x88, 0x62]), // HKSCS: Ê̄
    ]);
    const r = decodeHtml(bytes, 'text/html');
    expect(r.source).toBe('meta');
    expect(r.text).toContain(tw);
    expect(r.text.endsWith('Ê̄')).toBe(true);
  });

  it('decodes Shift_JIS from <meta charset> with sjis / windows-31j labels', () => {
    const ja = '日本たばこ産業のニュース①';
    for (const label of ['shift_jis', 'sjis', 'Windows-31J']) {
      const r = decodeHtml(iconv.encode(html(ja, `<meta charset="${label}">`), 'cp932'), null);
      expect(r.text).toContain(ja);
      expect(r.source).toBe('meta');
    }
  });

  it('decodes windows-1252 for iso-8859-1 / latin1 / ascii labels (0x80 is the euro sign)', () => {
    const bytes = Buffer.from([...Buffer.from('<p>caf'), 0xe9, 0x20, 0x80, 0x35, ...Buffer.from('</p>')]);
    for (const label of ['iso-8859-1', 'latin1', 'US-ASCII', 'windows-1252']) {
      const r = decodeHtml(bytes, `text/html;charset=${label}`);
      expect(r.text).toBe('<p>café €5</p>');
      expect(r.charset).toBe('windows-1252');
    }
  });

  it('decodes EUC-KR', () => {
    const ko = '한국 담배 뉴스';
    expect(decodeHtml(iconv.encode(html(ko), 'euc-kr'), 'text/html; charset=ks_c_5601-1987').text).toContain(ko);
  });

  it('uses a BOM over every declaration, and strips it', () => {
    const text = html(zh);
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text, 'utf-16le')]);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(text, 'utf-16be')]);
    const u8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    expect(decodeHtml(le, 'text/html; charset=gbk')).toEqual({ text, charset: 'utf-16le', source: 'bom' });
    expect(decodeHtml(be, 'text/html; charset=gbk')).toEqual({ text, charset: 'utf-16be', source: 'bom' });
    expect(decodeHtml(u8, 'text/html; charset=big5')).toEqual({ text, charset: 'utf-8', source: 'bom' });
  });

  it('prefers the header over <meta>, and falls through unknown labels', () => {
    const gbPage = iconv.encode(html(zh, '<meta charset="big5">'), 'gbk');
    expect(decodeHtml(gbPage, 'text/html; charset=gbk')).toMatchObject({ source: 'header', charset: 'gb18030' });
    const metaWins = iconv.encode(html(zh, '<meta charset="gbk">'), 'gbk');
    const r = decodeHtml(metaWins, 'text/html; charset=x-no-such-charset');
    expect(r.source).toBe('meta');
    expect(r.text).toContain(zh);
  });

  it('ignores <meta> inside comments and beyond the first 2048 bytes', () => {
    expect(sniffMetaCharset(Buffer.from('<!-- <meta charset="big5"> --><meta charset="gbk">'))).toBe('gbk');
    const late = Buffer.from('<html>' + ' '.repeat(3000) + '<meta charset="big5">');
    expect(sniffMetaCharset(late)).toBeNull();
  });

  it('corrects a UTF-8 declaration on GBK bytes to GB18030', () => {
    const r = decodeHtml(iconv.encode(html(zh, '<meta charset="utf-8">'), 'gbk'), 'text/html; charset=UTF-8');
    expect(r.charset).toBe('gb18030');
    expect(r.source).toBe('header');
    expect(r.text).toContain(zh);
  });

  it('corrects a UTF-8 declaration on Latin-1 bytes to windows-1252', () => {
    const bytes = iconv.encode(html('Café crème, à la française — naïve résumé'), 'windows-1252');
    const r = decodeHtml(bytes, 'text/html; charset=utf8');
    expect(r.charset).toBe('windows-1252');
    expect(r.text).toContain('Café crème, à la française — naïve résumé');
  });

  it('corrects a legacy declaration on a UTF-8 page when the evidence is strong', () => {
    const r = decodeHtml(Buffer.from(html(zh, '<meta charset="gb2312">')), null);
    expect(r.charset).toBe('utf-8');
    expect(r.source).toBe('meta');
    expect(r.text).toContain(zh);
    // a meta utf-16 label means utf-8 (WHATWG)
    expect(decodeHtml(Buffer.from(html(zh, '<meta charset="utf-16">')), null).charset).toBe('utf-8');
  });

  it('guesses when nothing is declared: UTF-8, then GB, then windows-1252', () => {
    expect(decodeHtml(Buffer.from(html(zh)), 'text/html')).toMatchObject({ charset: 'utf-8', source: 'default' });
    const gb = decodeHtml(iconv.encode(html(zh), 'gbk'), null);
    expect(gb).toMatchObject({ charset: 'gb18030', source: 'default' });
    expect(gb.text).toContain(zh);
    const latin = decodeHtml(iconv.encode(html('Ça coûte 5 € à Zürich'), 'windows-1252'), null);
    expect(latin).toMatchObject({ charset: 'windows-1252', source: 'default' });
    expect(latin.text).toContain('Ça coûte 5 € à Zürich');
  });
});

describe('charset helpers', () => {
  it('maps labels per WHATWG and rejects unknown ones', () => {
    expect(resolveCharset(' GB2312 ')).toBe('gb18030');
    expect(resolveCharset('Big5-HKSCS')).toBe('big5hkscs');
    expect(resolveCharset('UTF8')).toBe('utf-8');
    expect(resolveCharset('uft-8')).toBe('utf-8');
    expect(resolveCharset('koi8-r')).toBe('koi8-r');
    expect(resolveCharset('no-such')).toBeNull();
  });

  it('tells GB bytes from Latin-1 bytes', () => {
    expect(looksLikeGb(iconv.encode(zh, 'gbk'))).toBe(true);
    expect(looksLikeGb(iconv.encode('Café crème à la française', 'windows-1252'))).toBe(false);
    expect(looksLikeGb(Buffer.from('plain ascii'))).toBe(false);
  });
});
