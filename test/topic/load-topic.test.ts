import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTopicFile, parseTopicText } from '../../src/topic/load-topic.js';
import { errorOf } from '../helpers/error-of.js';

const dir = mkdtempSync(join(tmpdir(), 'topicrawl-topic-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}


const minimal = 'name: tobacco\nseeds:\n  - http://yancao.example/\n';

describe('loadTopicFile', () => {
  it('loads a minimal topic and applies the defaults', () => {
    const t = loadTopicFile(write('ok.yaml', minimal + 'keywords:\n  烟草: 2\n  tobacco: 1.5\n  travel: -1\n'));
    expect(t.name).toBe('tobacco');
    expect(t.seeds).toEqual(['http://yancao.example/']);
    expect(t.keywords).toEqual({ 烟草: 2, tobacco: 1.5, travel: -1 });
    expect(t.strategy.name).toBe('learning'); // the default (best-first-fish on a shared frontier: config.test.ts)
    expect(t.politeness.delay_ms).toBe(1000);
    expect(t.scope).toEqual({ hosts: [], include: [], exclude: [], exclude_traps: true, languages: [] });
    expect(t.dedup).toEqual({ enabled: true, max_distance: 3, follow_links: true });
  });

  it('accepts a UTF-8 byte order mark', () => {
    expect(loadTopicFile(write('bom.yaml', '\uFEFF' + minimal)).name).toBe('tobacco');
  });

  it('E_TOPIC_READ for a file that is not UTF-8, saying what it is and where', () => {
    const latin1 = join(dir, 'latin1.yaml');
    writeFileSync(latin1, Buffer.from(`${minimal}keywords:\n  café: 1\n`, 'latin1'));
    const e = errorOf(() => loadTopicFile(latin1));
    expect(e.code).toBe('E_TOPIC_READ');
    // line 5 is "  café: 1": the é (0xE9) is the 6th character
    expect(e.message).toBe(`${latin1}:5:6: cannot read topic file (byte 0xE9 is not UTF-8: Latin-1, Windows-1252, GBK or another legacy encoding?; expected UTF-8 text: save it as UTF-8)`);
    expect(e.details).toMatchObject({ file: latin1, expected: 'UTF-8 text', line: 5, column: 6 });

    for (const [name, bom, enc] of [['le.yaml', [0xff, 0xfe], 'utf16le'], ['be.yaml', [0xfe, 0xff], 'utf16be']] as const) {
      const text = Buffer.from(`\uFEFF${minimal}`, 'utf16le');
      if (enc === 'utf16be') text.swap16();
      expect([...text.subarray(0, 2)]).toEqual(bom);
      const file = join(dir, name);
      writeFileSync(file, text);
      const e16 = errorOf(() => loadTopicFile(file));
      expect(e16.code).toBe('E_TOPIC_READ');
      expect(e16.message).toBe(`${file}: cannot read topic file (it is UTF-16 (byte order mark ${bom.map((b) => `0x${b.toString(16).toUpperCase()}`).join(' ')}); expected UTF-8 text: save it as UTF-8)`);
    }
    const noBom = join(dir, 'nobom.yaml');
    writeFileSync(noBom, Buffer.from(minimal, 'utf16le'));
    expect(errorOf(() => loadTopicFile(noBom)).message).toMatch(/:1:2: cannot read topic file \(it looks like UTF-16 without a byte order mark/);
  });

  it('E_TOPIC_READ for a missing file or a directory', () => {
    const missing = join(dir, 'nope.yaml');
    const e = errorOf(() => loadTopicFile(missing));
    expect(e.code).toBe('E_TOPIC_READ');
    expect(e.message).toBe(`${missing}: cannot read topic file (no such file)`);
    expect(e.details.file).toBe(missing);
    expect(errorOf(() => loadTopicFile(dir)).code).toBe('E_TOPIC_READ');
  });

  it('E_TOPIC_YAML with line:column for a syntax error', () => {
    const p = write('syntax.yaml', 'name: x\nseeds: [http://a.example/,\nkeywords:\n  a: 1\n');
    const e = errorOf(() => loadTopicFile(p));
    expect(e.code).toBe('E_TOPIC_YAML');
    expect(e.message).not.toContain('\n');
    expect(e.message).toMatch(new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: YAML syntax error: `));
    expect(e.details.line).toBeGreaterThanOrEqual(2);
    expect(typeof e.details.column).toBe('number');
  });

  it('E_TOPIC_YAML for duplicate keys and tabs, with the line of the problem', () => {
    const e = errorOf(() => parseTopicText('name: a\nseeds: [http://a.example/]\nname: b\n', 't.yaml'));
    expect(e.code).toBe('E_TOPIC_YAML');
    expect(e.message).toBe('t.yaml:3:1: YAML syntax error: Map keys must be unique: "name" is defined at line 1 already');
    expect(errorOf(() => parseTopicText('name: a\n\tseeds: []\n', 't.yaml')).code).toBe('E_TOPIC_YAML');
  });

  it('finds duplicate keys in any mapping, every one of them, and only real ones', () => {
    const keywords = Array.from({ length: 3000 }, (_, i) => `  kw${i}: 1`);
    keywords.splice(2500, 0, '  kw17: 2'); // line 5 + 2500
    const text = `${minimal}keywords:\n${keywords.join('\n')}\nstrategy:\n  x: 0.1\n  x: 0.2\n`;
    const e = errorOf(() => parseTopicText(text, 't.yaml'));
    expect(e.code).toBe('E_TOPIC_YAML');
    expect(e.message).toBe('t.yaml:2505:3: YAML syntax error: Map keys must be unique: "kw17" is defined at line 22 already');
    const issues = (e.details as { issues: { message: string; line: number }[] }).issues;
    expect(issues.map((i) => [i.line, i.message.replace(/^.*unique: /, '')])).toEqual([
      [2505, '"kw17" is defined at line 22 already'],
      [3008, '"x" is defined at line 3007 already'],
    ]);
    // the same key in two different mappings, and 1 against "1", are no duplicates
    const ok = parseTopicText(`${minimal}keywords:\n  x: 1\n  1: 1\n  "1b": 2\nlocation:\n  tokens:\n    x: 1\n`, 't.yaml');
    expect(ok.location.tokens).toEqual({ x: 1 });
  });

  it('E_TOPIC_SCHEMA for a wrong type, at the value', () => {
    const text = minimal + 'strategy:\n  name: best-first\n  x: abc\n';
    const e = errorOf(() => parseTopicText(text, 'topics/x.yaml'));
    expect(e.code).toBe('E_TOPIC_SCHEMA');
    expect(e.message).toBe('topics/x.yaml:6:6: strategy.x: expected a number, got "abc"');
    expect(e.details).toMatchObject({ file: 'topics/x.yaml', key: 'strategy.x', expected: 'a number', line: 6, column: 6 });
  });

  it('reports integers and bounds in words', () => {
    const e = errorOf(() => parseTopicText(minimal + 'limits:\n  max_pages: 0\n', 'x.yaml'));
    expect(e.message).toBe('x.yaml:5:14: limits.max_pages: expected an integer >= 1, got 0');
    const f = errorOf(() => parseTopicText(minimal + 'strategy:\n  max_life: 2.5\n', 'x.yaml'));
    expect(f.message).toBe('x.yaml:5:13: strategy.max_life: expected an integer, got 2.5');
  });

  it('E_TOPIC_SCHEMA for an unknown key, at the key, listing the allowed keys', () => {
    const e = errorOf(() => parseTopicText(minimal + 'bogus: 1\n', 'x.yaml'));
    expect(e.code).toBe('E_TOPIC_SCHEMA');
    expect(e.message).toMatch(/^x\.yaml:4:1: unknown key "bogus" \(allowed: name, description, seeds, scope, url, sitemaps, keywords, /);
    const g = errorOf(() => parseTopicText(minimal + 'politeness:\n  dealy_ms: 5\n', 'x.yaml'));
    expect(g.message).toMatch(/^x\.yaml:5:3: politeness: unknown key "dealy_ms" \(did you mean "delay_ms"\? allowed: delay_ms, /);
  });

  it('E_TOPIC_SCHEMA for missing seeds, without a line', () => {
    const e = errorOf(() => parseTopicText('name: x\n', 'topics/x.yaml'));
    expect(e.message).toBe('topics/x.yaml: missing required key "seeds" (a list of http(s) URLs)');
    expect(e.details.line).toBeUndefined();
    expect(e.details.key).toBe('seeds');
  });

  it('a typo of a required key is told at the typo, not as the key it left missing', () => {
    const e = errorOf(() => parseTopicText('name: x\nsead:\n  - http://a.example/\n', 'topics/x.yaml'));
    expect(e.code).toBe('E_TOPIC_SCHEMA');
    expect(e.message).toMatch(/^topics\/x\.yaml:2:1: unknown key "sead" \(did you mean "seeds"\? allowed: /);
    expect(e.details.line).toBe(2);
    // both issues are kept, the typo first
    const keys = (e.details.issues as { key: string }[]).map((i) => i.key);
    expect(keys).toEqual(['sead', 'seeds']);
    // an unknown key that spells no missing key does not jump ahead of one
    const f = errorOf(() => parseTopicText('name: x\nbogus: 1\n', 'topics/x.yaml'));
    expect(f.message).toBe('topics/x.yaml: missing required key "seeds" (a list of http(s) URLs)');
  });

  it('rejects non-http seeds and empty seed lists', () => {
    const e = errorOf(() => parseTopicText('name: x\nseeds:\n  - http://ok.example/\n  - ftp://files.example/\n', 'x.yaml'));
    expect(e.message).toBe('x.yaml:4:5: seeds[1]: expected an http(s) URL, got "ftp://files.example/"');
    expect(errorOf(() => parseTopicText('name: x\nseeds: []\n', 'x.yaml')).message).toBe('x.yaml:2:8: seeds: expected a non-empty list, got an empty list');
  });

  it('E_TOPIC_SCHEMA for a bad regex, naming the pattern', () => {
    const e = errorOf(() => parseTopicText(minimal + 'scope:\n  exclude:\n    - "\\\\?sort="\n    - "(abc"\n', 'x.yaml'));
    expect(e.code).toBe('E_TOPIC_SCHEMA');
    expect(e.message).toMatch(/^x\.yaml:7:7: scope\.exclude\[1\]: invalid regular expression "\(abc" \(.+\)$/);
  });

  it('E_TOPIC_SCHEMA for a blank keyword key', () => {
    const e = errorOf(() => parseTopicText(minimal + 'keywords:\n  "  ": 1\n  ok: 2\n', 'x.yaml'));
    expect(e.message).toBe('x.yaml:5:3: keywords: a key must not be blank, got "  "');
  });

  it('reports every issue in details.issues, the first (by position) in the message', () => {
    const text = 'name: x\nseeds: [http://a.example/]\nstrategy:\n  x: "no"\nbogus: true\nlimits:\n  max_depth: -1\n';
    const e = errorOf(() => parseTopicText(text, 'x.yaml'));
    const issues = e.details.issues as { key: string; line: number }[];
    expect(issues.map((i) => i.key)).toEqual(['strategy.x', 'bogus', 'limits.max_depth']);
    expect(issues.map((i) => i.line)).toEqual([4, 5, 7]);
    expect(e.message).toBe('x.yaml:4:6: strategy.x: expected a number, got "no"');
  });

  it('says so when the file is empty or not a mapping', () => {
    expect(errorOf(() => parseTopicText('', 'e.yaml')).message).toMatch(/^e\.yaml: the topic file is empty/);
    expect(errorOf(() => parseTopicText('- a\n- b\n', 'l.yaml')).message).toBe('l.yaml:1:1: expected the topic to be a mapping of keys, got a list');
  });
});
