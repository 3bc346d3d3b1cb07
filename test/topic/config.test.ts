import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConfig, loadConfig, parseSetFlag } from '../../src/topic/config.js';
import { TopicSchema } from '../../src/topic/topic-schema.js';
import { errorOf } from '../helpers/error-of.js';

const dir = mkdtempSync(join(tmpdir(), 'topicrawl-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));


const input = { name: 't', seeds: ['http://a.example/'], strategy: { name: 'fish', x: 0.5 }, limits: { max_pages: 50 } };
const defaults = TopicSchema.parse({ name: 't', seeds: ['http://a.example/'] });

describe('buildConfig merge order: defaults ← topic ← flags', () => {
  it('takes defaults for keys the topic does not set', () => {
    const c = buildConfig(input, {});
    expect(c.strategy.y).toBe(defaults.strategy.y);
    expect(c.politeness).toEqual(defaults.politeness);
  });

  it('the topic wins over defaults', () => {
    const c = buildConfig(input, {});
    expect(c.strategy.name).toBe('fish');
    expect(c.strategy.x).toBe(0.5);
    expect(c.limits.max_pages).toBe(50);
    expect(defaults.limits.max_pages).not.toBe(50);
  });

  it('flags win over the topic; --strategy and --max-pages win over --set', () => {
    const c = buildConfig(input, {
      set: ['strategy.x=0.4', 'politeness.delay_ms=0', 'keywords.烟草=2', 'scope.hosts=[a.example, "*.b.example"]', 'politeness.robots=false', 'description=', 'limits.max_pages=7'],
      strategy: 'opic',
      maxPages: 9,
    });
    expect(c.strategy).toMatchObject({ name: 'opic', x: 0.4 });
    expect(c.politeness.delay_ms).toBe(0);
    expect(c.politeness.robots).toBe(false);
    expect(c.keywords).toEqual({ 烟草: 2 });
    expect(c.scope.hosts).toEqual(['a.example', '*.b.example']);
    expect(c.description).toBe('');
    expect(c.limits.max_pages).toBe(9);
  });

  it('a later --set wins over an earlier one, and the input is not modified', () => {
    const copy = structuredClone(input);
    const c = buildConfig(input, { set: ['strategy.z=0.1', 'strategy.z=0.2'] });
    expect(c.strategy.z).toBe(0.2);
    expect(input).toEqual(copy);
  });

  it('returns a deep-frozen object', () => {
    const c = buildConfig(input, { set: ['keywords.a=1'] });
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.strategy)).toBe(true);
    expect(Object.isFrozen(c.seeds)).toBe(true);
    expect(Object.isFrozen(c.relevance.fields)).toBe(true);
    expect(() => {
      (c.strategy as { x: number }).x = 9;
    }).toThrow(TypeError);
  });

  it('accepts an already-built (frozen) config and rebuilds it with new flags', () => {
    const c = buildConfig(input, {});
    expect(buildConfig(c, { maxPages: 3 }).limits.max_pages).toBe(3);
  });
});

describe('bad flags', () => {
  it('E_CONFIG naming the flag for a value of the wrong type', () => {
    const e = errorOf(() => buildConfig(input, { set: ['strategy.x=abc'] }));
    expect(e.code).toBe('E_CONFIG');
    expect(e.message).toBe('command line: --set strategy.x=abc: expected a number, got "abc"');
    expect(e.details).toMatchObject({ source: 'command line', flag: '--set strategy.x=abc', key: 'strategy.x', expected: 'a number' });
  });

  it('E_CONFIG for an unknown key set from the command line', () => {
    const e = errorOf(() => buildConfig(input, { set: ['strategy.bogus=1'] }));
    expect(e.code).toBe('E_CONFIG');
    expect(e.message).toMatch(/^command line: --set strategy\.bogus=1: strategy: unknown key "bogus"/);
  });

  it('E_CONFIG for --max-pages out of range and a bad regex from --set', () => {
    expect(errorOf(() => buildConfig(input, { maxPages: 0 })).message).toBe('command line: --max-pages 0: expected an integer >= 1, got 0');
    const e = errorOf(() => buildConfig(input, { set: ['scope.exclude=["("]'] }));
    expect(e.code).toBe('E_CONFIG');
    expect(e.message).toMatch(/^command line: --set scope\.exclude=\["\("\]: scope\.exclude\[0\]: invalid regular expression/);
  });

  it('E_USAGE for a malformed --set', () => {
    for (const bad of ['noequals', '=1', 'a..b=1', '__proto__.x=1', 'strategy.x=[1, 2']) {
      expect(errorOf(() => buildConfig(input, { set: [bad] })).code, bad).toBe('E_USAGE');
    }
  });

  it('E_CONFIG when a --set path goes through a value that is not a mapping', () => {
    const e = errorOf(() => buildConfig(input, { set: ['name.x=1'] }));
    expect(e.code).toBe('E_CONFIG');
    expect(e.message).toBe('command line: --set name.x=1: name is "t", not a mapping');
  });

  it('E_TOPIC_SCHEMA naming the file when the topic itself is wrong', () => {
    const e = errorOf(() => buildConfig({ name: 't' } as never, {}, 'topics/t.yaml'));
    expect(e.code).toBe('E_TOPIC_SCHEMA');
    expect(e.message).toBe('topics/t.yaml: missing required key "seeds" (a list of http(s) URLs)');
  });
});

describe('parseSetFlag', () => {
  it('parses YAML scalars and flow sequences', () => {
    expect(parseSetFlag('a.b=0.4')).toEqual({ path: ['a', 'b'], value: 0.4 });
    expect(parseSetFlag('a=true')).toEqual({ path: ['a'], value: true });
    expect(parseSetFlag('a=hello world')).toEqual({ path: ['a'], value: 'hello world' });
    expect(parseSetFlag('a="12"')).toEqual({ path: ['a'], value: '12' });
    expect(parseSetFlag('a=[x, 2]')).toEqual({ path: ['a'], value: ['x', 2] });
    expect(parseSetFlag('a=b=c')).toEqual({ path: ['a'], value: 'b=c' });
  });
});

describe('loadConfig', () => {
  it('loads the file, then applies flags', () => {
    const p = join(dir, 't.yaml');
    writeFileSync(p, 'name: t\nseeds: [http://a.example/]\npoliteness:\n  delay_ms: 250\n');
    const c = loadConfig(p, { set: ['politeness.concurrency=4'] });
    expect(c.politeness.delay_ms).toBe(250);
    expect(c.politeness.concurrency).toBe(4);
    expect(errorOf(() => loadConfig(join(dir, 'missing.yaml'), {})).code).toBe('E_TOPIC_READ');
  });
});

describe('the default strategy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'topicrawl-default-strategy-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const plain = "name: d\nseeds: ['http://d.example/']\nkeywords: {d: 1}\n";

  it('is learning, and best-first-fish on a shared frontier when neither the file nor a flag names one', () => {
    const unnamed = file('unnamed.yaml', plain);
    expect(loadConfig(unnamed).strategy.name).toBe('learning');
    expect(loadConfig(unnamed, { sharedFrontier: true }).strategy.name).toBe('best-first-fish');
    // named in the file, by --strategy or by --set: kept (a shared crawl then refuses learning by name)
    expect(loadConfig(file('named.yaml', `${plain}strategy: {name: learning}\n`), { sharedFrontier: true }).strategy.name).toBe('learning');
    expect(loadConfig(unnamed, { sharedFrontier: true, strategy: 'shark' }).strategy.name).toBe('shark');
    expect(loadConfig(unnamed, { sharedFrontier: true, set: ['strategy.name=fish'] }).strategy.name).toBe('fish');
    // other strategy keys in the file do not name it
    expect(loadConfig(file('keys.yaml', `${plain}strategy: {x: 0.5, y: 0.3, z: 0.2}\n`), { sharedFrontier: true }).strategy.name).toBe('best-first-fish');
  });
});
