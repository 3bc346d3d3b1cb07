import { describe, expect, it } from 'vitest';
import { classConfigFor, classifyPage, isHomeUrl, looksLikeList } from '../../src/revisit/url-class.js';
import { DEFAULT_REVISIT_CLASSES } from '../../src/revisit/default-classes.js';
import type { RevisitClassConfig } from '../../src/revisit/revisit-policy.js';
import { buildConfig } from '../../src/topic/config.js';
import { TopicrawlError } from '../../src/errors.js';

const DAY = 86_400_000;
const defaults = DEFAULT_REVISIT_CLASSES;
const prose = { links: 30, textWords: 1200 };

describe('classifyPage with the default classes', () => {
  it.each([
    ['http://a.example/', 'home'],
    ['https://a.example', 'home'],
    ['http://a.example/index.html', 'home'],
    ['http://a.example/?lang=en', 'home'],
    ['http://a.example/category/tea', 'list'],
    ['http://a.example/tags/green', 'list'],
    ['http://a.example/news/', 'list'],
    ['http://a.example/blog', 'list'],
    ['http://a.example/search?q=x&page=3', 'list'],
    ['http://a.example/archive/page/2/', 'list'],
    ['http://a.example/products/oolong-250g', 'product'],
    ['http://a.example/shop?product_id=77', 'product'],
    ['http://a.example/2024/05/harvest-report.html', 'content'],
    ['http://a.example/news/harvest-report', 'content'],
    ['http://a.example/about-us.html', 'content'],
  ])('%s → %s', (url, cls) => {
    expect(classifyPage(url, prose, defaults)).toBe(cls);
  });

  it('is case-insensitive', () => {
    expect(classifyPage('http://a.example/Category/Tea', prose, defaults)).toBe('list');
  });
});

describe('classifyPage: features when no pattern matches', () => {
  const none: RevisitClassConfig[] = [];
  it('a host root or a root /index.* is a home page', () => {
    expect(classifyPage('http://b.example/', null, none)).toBe('home');
    expect(classifyPage('http://b.example/index.php', null, none)).toBe('home');
    expect(classifyPage('http://b.example/docs/index.php', null, none)).toBe('content');
    expect(isHomeUrl('not a url')).toBe(false);
  });

  it('many links per word of text is a list page; prose is content; unknown features are content', () => {
    expect(classifyPage('http://b.example/x', { links: 120, textWords: 400 }, none)).toBe('list');
    expect(classifyPage('http://b.example/x', { links: 40, textWords: 1500 }, none)).toBe('content');
    expect(classifyPage('http://b.example/x', { links: 5, textWords: 0 }, none)).toBe('content'); // too few links
    expect(classifyPage('http://b.example/x', null, none)).toBe('content');
    expect(looksLikeList({ links: 20, textWords: 100 })).toBe(true);
    expect(looksLikeList({ links: 20, textWords: 101 })).toBe(false);
  });
});

describe('classifyPage with topic classes', () => {
  const topic: RevisitClassConfig[] = [
    { name: 'forum', patterns: ['/thread/\\d+'], initial_ms: DAY, min_ms: DAY / 24, max_ms: 7 * DAY },
    { name: 'docs', patterns: ['/docs/'], initial_ms: 7 * DAY, min_ms: DAY, max_ms: 90 * DAY },
    { name: 'everything-docs', patterns: ['/docs/', '.'], initial_ms: DAY, min_ms: DAY, max_ms: DAY },
  ];

  it('the first class (in topic order) with a matching pattern wins', () => {
    expect(classifyPage('http://c.example/thread/991', prose, topic)).toBe('forum');
    expect(classifyPage('http://c.example/docs/api', prose, topic)).toBe('docs');
    expect(classifyPage('http://c.example/other', prose, topic)).toBe('everything-docs');
  });

  it('an invalid pattern is an E_CONFIG error naming the class', () => {
    const bad: RevisitClassConfig[] = [{ name: 'broken', patterns: ['(unclosed'], initial_ms: DAY, min_ms: DAY, max_ms: DAY }];
    try {
      classifyPage('http://c.example/', null, bad);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(TopicrawlError);
      expect((err as TopicrawlError).code).toBe('E_CONFIG');
      expect((err as Error).message).toContain('broken');
    }
  });
});

describe('classConfigFor', () => {
  const own: RevisitClassConfig[] = [
    { name: 'content', patterns: [], initial_ms: 2 * DAY, min_ms: DAY, max_ms: 9 * DAY },
    { name: 'forum', patterns: [], initial_ms: DAY, min_ms: DAY / 24, max_ms: 7 * DAY },
  ];
  it('the topic class, else the built-in one, else the topic content class', () => {
    expect(classConfigFor('forum', own).initial_ms).toBe(DAY);
    expect(classConfigFor('list', own)).toEqual(defaults.find((c) => c.name === 'list'));
    expect(classConfigFor('gone', own).initial_ms).toBe(2 * DAY);
    expect(classConfigFor('gone', []).name).toBe('content');
  });
});

describe('the topic revisit block', () => {
  const base = { name: 't', seeds: ['http://a.example/'] };

  it('has the documented defaults, frozen', () => {
    const cfg = buildConfig(base);
    expect(cfg.revisit.budget_per_day).toBe(10_000);
    expect(cfg.revisit.min_checks).toBe(3);
    expect(cfg.revisit.max_failures).toBe(3);
    const byName = Object.fromEntries(cfg.revisit.classes.map((c) => [c.name, [c.initial_ms / DAY, c.min_ms / DAY, c.max_ms / DAY]]));
    expect(byName).toEqual({ home: [1, 1 / 24, 7], list: [1, 1 / 24, 7], product: [3, 0.25, 30], content: [7, 1, 60] });
    expect(Object.isFrozen(cfg.revisit.classes[0].patterns)).toBe(true);
    // the defaults are copies: classifying with them works and they classify like the built-ins
    expect(classifyPage('http://a.example/tags/x', null, cfg.revisit.classes)).toBe('list');
  });

  it('a topic can replace the classes and the budget', () => {
    const cfg = buildConfig({ ...base, revisit: { classes: [{ name: 'all', patterns: ['.'], initial_ms: DAY, min_ms: DAY, max_ms: 2 * DAY }], budget_per_day: 50 } });
    expect(cfg.revisit.classes.map((c) => c.name)).toEqual(['all']);
    expect(cfg.revisit.budget_per_day).toBe(50);
    expect(cfg.revisit.min_checks).toBe(3);
  });

  it.each([
    [{ classes: [{ name: 'x', patterns: ['(a'], initial_ms: DAY, min_ms: DAY, max_ms: DAY }] }, 'revisit.classes[0].patterns[0]'],
    [{ classes: [{ name: 'x', patterns: [], initial_ms: DAY, min_ms: 2 * DAY, max_ms: DAY }] }, 'revisit.classes[0].min_ms'],
    [{ classes: [{ name: 'x', patterns: [], initial_ms: 9 * DAY, min_ms: DAY, max_ms: 2 * DAY }] }, 'revisit.classes[0].initial_ms'],
    [{ classes: [{ name: 'x', patterns: [], initial_ms: DAY, min_ms: DAY, max_ms: DAY }, { name: 'x', patterns: [], initial_ms: DAY, min_ms: DAY, max_ms: DAY }] }, 'revisit.classes[1].name'],
    [{ budget_per_day: 0 }, 'revisit.budget_per_day'],
    [{ colour: 'red' }, 'revisit'],
  ])('rejects %j at %s', (revisit, key) => {
    try {
      buildConfig({ ...base, revisit } as never, {}, 'topic.yaml');
      expect.unreachable();
    } catch (err) {
      expect((err as TopicrawlError).code).toBe('E_TOPIC_SCHEMA');
      expect(String((err as TopicrawlError).details.key)).toContain(key);
    }
  });

  it('--set reaches the block', () => {
    const cfg = buildConfig(base, { set: ['revisit.budget_per_day=123', 'revisit.min_checks=5'] });
    expect(cfg.revisit.budget_per_day).toBe(123);
    expect(cfg.revisit.min_checks).toBe(5);
  });
});
