import { rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCorpus, relevantUrls } from '../../src/eval/corpus.js';
import { TopicrawlError } from '../../src/errors.js';
import { makeTree } from './helpers.js';

const META = { name: 't', description: 'd', license: 'CC0-1.0', seeds: ['http://a.example/'], labels: { x: 'the x label', y: 'y' } };
const dirs: string[] = [];

function corpus(over: Record<string, string> = {}): string {
  const d = makeTree({
    'corpus.json': JSON.stringify(META),
    'labels.tsv': 'url\tlabels\nhttp://a.example/\tx\nhttp://a.example/p.html\t\nhttp://b.example/\tx,y\n',
    'site/a.example/index.html': '<p>a</p>',
    'site/a.example/p.html': '<p>p</p>',
    'site/b.example/index.html': '<p>b</p>',
    ...over,
  });
  dirs.push(d);
  return d;
}

function corpusError(dir: string): TopicrawlError {
  try {
    loadCorpus(dir);
  } catch (err) {
    expect(err).toBeInstanceOf(TopicrawlError);
    return err as TopicrawlError;
  }
  throw new Error('loadCorpus did not throw');
}

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('loadCorpus', () => {
  it('reads meta, hosts and labels', () => {
    const c = loadCorpus(corpus());
    expect(c.meta.name).toBe('t');
    expect(c.meta.seeds).toEqual(['http://a.example/']);
    expect(c.hosts).toEqual(['a.example', 'b.example']);
    expect(c.labels.get('http://a.example/p.html')).toEqual([]);
    expect(c.labels.get('http://b.example/')).toEqual(['x', 'y']);
    expect(c.labels.size).toBe(3);
    expect([...relevantUrls(c, 'x')].sort()).toEqual(['http://a.example/', 'http://b.example/']);
    expect([...relevantUrls(c, 'y')]).toEqual(['http://b.example/']);
    expect(relevantUrls(c, 'nope').size).toBe(0);
  });

  it('accepts CRLF line ends and a trailing blank line', () => {
    const c = loadCorpus(corpus({ 'labels.tsv': 'url\tlabels\r\nhttp://a.example/\tx\r\n\r\n' }));
    expect(c.labels.get('http://a.example/')).toEqual(['x']);
  });

  it('missing corpus.json → E_CORPUS naming the file', () => {
    const d = corpus();
    unlinkSync(join(d, 'corpus.json'));
    const e = corpusError(d);
    expect(e.code).toBe('E_CORPUS');
    expect(e.message).toContain('corpus.json');
    expect(e.message).not.toContain('\n');
  });

  it.each([
    ['not JSON', '{name: 1', 'not valid JSON'],
    ['seeds missing', JSON.stringify({ ...META, seeds: undefined }), 'seeds'],
    ['bad seed URL', JSON.stringify({ ...META, seeds: ['ftp://x/'] }), 'seeds.0'],
    ['labels not a map', JSON.stringify({ ...META, labels: ['x'] }), 'labels'],
  ])('bad corpus.json (%s) → E_CORPUS', (_what, content, hint) => {
    const e = corpusError(corpus({ 'corpus.json': content }));
    expect(e.code).toBe('E_CORPUS');
    expect(e.message).toContain('corpus.json');
    expect(e.message).toContain(hint);
  });

  it('missing labels.tsv → E_CORPUS', () => {
    const d = corpus();
    unlinkSync(join(d, 'labels.tsv'));
    const e = corpusError(d);
    expect(e.code).toBe('E_CORPUS');
    expect(e.message).toContain('labels.tsv');
  });

  it.each([
    ['wrong header', 'url,labels\nhttp://a.example/\tx\n', ':1:'],
    ['three columns', 'url\tlabels\nhttp://a.example/\tx\tz\n', ':2:'],
    ['bad URL', 'url\tlabels\nnot a url\tx\n', 'not an http(s) URL'],
    ['duplicate URL', 'url\tlabels\nhttp://a.example/\tx\nhttp://a.example/\t\n', 'duplicate'],
    ['undeclared label', 'url\tlabels\nhttp://a.example/\tx,zzz\n', 'zzz'],
  ])('bad labels.tsv (%s) → E_CORPUS', (_what, content, hint) => {
    const e = corpusError(corpus({ 'labels.tsv': content }));
    expect(e.code).toBe('E_CORPUS');
    expect(e.message).toContain('labels.tsv');
    expect(e.message).toContain(hint);
  });

  it('missing site/ folder or missing corpus folder → E_CORPUS', () => {
    const d = corpus();
    rmSync(join(d, 'site'), { recursive: true });
    expect(corpusError(d).message).toContain('site');
    expect(corpusError(join(d, 'nope')).code).toBe('E_CORPUS');
  });

  it('a host folder that is not a host name → E_CORPUS', () => {
    const d = corpus({ 'site/Bad Host/index.html': 'x' });
    expect(corpusError(d).message).toContain('Bad Host');
  });

  it('ignores plain files directly under site/', () => {
    writeFileSync(join(corpus(), 'site', 'README'), 'x');
    const c = loadCorpus(dirs[dirs.length - 1]);
    expect(c.hosts).toEqual(['a.example', 'b.example']);
  });
});
