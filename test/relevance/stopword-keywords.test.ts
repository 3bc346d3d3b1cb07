import { describe, expect, it } from 'vitest';
import { buildConfig } from '../../src/topic/config.js';
import { parseTopicText } from '../../src/topic/load-topic.js';
import { errorOf } from '../helpers/error-of.js';


describe('topic validation: stop-word keywords', () => {
  it('rejects a keyword that is an English stop word, naming it and its line', () => {
    const yaml = 'name: t\nseeds: [http://a.example/]\nkeywords:\n  tobacco: 2\n  The: 1\n';
    const err = errorOf(() => parseTopicText(yaml, 'topic.yaml'));
    expect(err.code).toBe('E_TOPIC_SCHEMA');
    expect(err.message).toBe('topic.yaml:5:3: keywords.The: a stop word never marks a topic');
  });

  it('rejects a keyword made only of stop words, and a --set that adds one', () => {
    const err = errorOf(() => buildConfig({ name: 't', seeds: ['http://a.example/'], keywords: { 'of the': 1 } }));
    expect(err.message).toContain('stop words never mark a topic');
    const flag = errorOf(() => buildConfig({ name: 't', seeds: ['http://a.example/'] }, { set: ['keywords.about=1'] }));
    expect(flag.code).toBe('E_CONFIG');
    expect(flag.message).toBe('command line: --set keywords.about=1: a stop word never marks a topic');
  });

  it('accepts keywords that only contain a stop word, Chinese keywords and negative weights', () => {
    const c = buildConfig({ name: 't', seeds: ['http://a.example/'], keywords: { 'the tobacco': 1, theory: 1, 烟草: 2, travel: -1, x: 1 } });
    expect(Object.keys(c.keywords)).toHaveLength(5); // single letters are not rejected
  });
});
