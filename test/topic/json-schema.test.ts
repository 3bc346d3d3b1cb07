import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TOPIC_SCHEMA_ID, topicJsonSchema, topicJsonSchemaText } from '../../src/topic/json-schema.js';

const committed = readFileSync(new URL('../../topics/topic.schema.json', import.meta.url), 'utf8');

describe('topics/topic.schema.json', () => {
  it('is what scripts/gen-schema.ts generates now (run `npx tsx scripts/gen-schema.ts` if this fails)', () => {
    expect(committed).toBe(topicJsonSchemaText());
  });

  it('describes topic files: $id, title, required keys, no unknown keys, input defaults optional', () => {
    const s = topicJsonSchema() as { $id: string; title: string; required: string[]; additionalProperties: boolean; properties: Record<string, unknown> };
    expect(s.$id).toBe(TOPIC_SCHEMA_ID);
    expect(s.title).toBeTruthy();
    expect(s.required.sort()).toEqual(['name', 'seeds']);
    expect(s.additionalProperties).toBe(false);
    expect(Object.keys(s.properties)).toContain('strategy');
  });
});
