import * as z from 'zod';
import { TopicSchema } from './topic-schema.js';

/** `$id` of the generated schema. */
export const TOPIC_SCHEMA_ID = 'https://example.invalid/topicrawl/topic.schema.json';

/**
 * The JSON Schema (draft 2020-12) of topic files, for editors, generated from TopicSchema with
 * `io: 'input'` (keys with defaults are optional). `topics/topic.schema.json` holds this exact text
 * (`scripts/gen-schema.ts` writes it; a test keeps the two in sync).
 */
export function topicJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(TopicSchema, { io: 'input' }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return { $schema, $id: TOPIC_SCHEMA_ID, title: 'topicrawl topic file', ...rest };
}

/** The file text of `topics/topic.schema.json`: 2-space JSON and a final newline. */
export function topicJsonSchemaText(): string {
  return JSON.stringify(topicJsonSchema(), null, 2) + '\n';
}
