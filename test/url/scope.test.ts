import { describe, expect, it } from 'vitest';
import { createScope, MEDIA_EXTENSIONS, type ScopeDecision } from '../../src/url/scope.js';
import { TopicrawlError } from '../../src/errors.js';
import { buildConfig } from '../../src/topic/config.js';

const none = { hosts: [], include: [], exclude: [] };
const reason = (d: ScopeDecision) => (d.ok ? 'ok' : d.reason);

describe('createScope', () => {
  it('accepts any http(s) URL with an empty scope, refuses other schemes and garbage', () => {
    const inScope = createScope(none);
    expect(inScope('http://a.com/')).toEqual({ ok: true });
    expect(inScope('https://b.org/x.html')).toEqual({ ok: true });
    expect(reason(inScope('ftp://a.com/'))).toBe('scheme');
    expect(reason(inScope('mailto:x@a.com'))).toBe('scheme');
    expect(reason(inScope('not a url'))).toBe('scheme');
  });

  it('matches host globs: exact, *.domain (subdomains only), *', () => {
    const s = createScope({ ...none, hosts: ['example.com', '*.yancao.cn', 'Bücher.de'] });
    expect(reason(s('http://example.com/a'))).toBe('ok');
    expect(reason(s('http://example.com:8080/a'))).toBe('ok');
    expect(reason(s('http://www.example.com/a'))).toBe('host');
    expect(reason(s('http://notexample.com/a'))).toBe('host');
    expect(reason(s('http://news.yancao.cn/'))).toBe('ok');
    expect(reason(s('http://a.b.yancao.cn/'))).toBe('ok');
    expect(reason(s('http://yancao.cn/'))).toBe('host');
    expect(reason(s('http://xyancao.cn/'))).toBe('host');
    expect(reason(s('http://xn--bcher-kva.de/'))).toBe('ok');
    const any = createScope({ ...none, hosts: ['*'] });
    expect(reason(any('http://whatever.net/'))).toBe('ok');
  });

  it('applies include (one must match) and exclude (none may match)', () => {
    const s = createScope({ hosts: [], include: ['/news/', '/article/\\d+'], exclude: ['\\?sort=', '/calendar/'] });
    expect(reason(s('http://a.com/news/1.html'))).toBe('ok');
    expect(reason(s('http://a.com/article/42'))).toBe('ok');
    expect(reason(s('http://a.com/about'))).toBe('include');
    expect(reason(s('http://a.com/news/?sort=date'))).toBe('exclude');
    expect(reason(s('http://a.com/news/calendar/2024'))).toBe('exclude');
  });

  it('filters media and binary by path extension, case-insensitively, not by query', () => {
    const s = createScope(none);
    for (const ext of ['jpg', 'PNG', 'mp3', 'mp4', 'zip', 'pdf', 'docx', 'woff2', 'exe', 'css', 'js']) {
      expect(reason(s(`http://a.com/dir/file.${ext}`)), ext).toBe('media');
    }
    expect(reason(s('http://a.com/page.html'))).toBe('ok');
    expect(reason(s('http://a.com/page.php?img=a.jpg'))).toBe('ok');
    expect(reason(s('http://a.com/v1.2/page'))).toBe('ok');
    expect(MEDIA_EXTENSIONS).toContain('pdf');
    const custom = createScope(none, { mediaExtensions: ['html'] });
    expect(reason(custom('http://a.com/x.html'))).toBe('media');
    expect(reason(custom('http://a.com/x.pdf'))).toBe('ok');
  });

  it('caps the URL length (default 2048)', () => {
    const s = createScope(none);
    const base = 'http://a.com/';
    expect(reason(s(base + 'x'.repeat(2048 - base.length)))).toBe('ok');
    expect(reason(s(base + 'x'.repeat(2049 - base.length)))).toBe('length');
    expect(reason(createScope(none, { maxUrlLength: 20 })('http://a.com/123456789'))).toBe('length');
  });

  it('throws E_CONFIG naming the pattern when a regex does not compile', () => {
    try {
      createScope({ ...none, exclude: ['ok', '(unclosed'] });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(TopicrawlError);
      expect((err as TopicrawlError).code).toBe('E_CONFIG');
      expect((err as TopicrawlError).message).toContain('scope.exclude[1]');
      expect((err as TopicrawlError).message).toContain('(unclosed');
    }
  });

  it("takes a Config's scope section as it is", () => {
    const c = buildConfig({ name: 't', seeds: ['http://a.example/'], scope: { hosts: ['a.example'], exclude: ['/private/'] } }, {});
    const s = createScope(c.scope);
    expect(reason(s('http://a.example/x'))).toBe('ok');
    expect(reason(s('http://a.example/private/x'))).toBe('exclude');
    expect(reason(s('http://b.example/x'))).toBe('host');
  });
});
