/**
 * Writes topics/topic.schema.json from TopicSchema (src/topic/json-schema.ts).
 * Run: npx tsx scripts/gen-schema.ts   (a test fails when the committed file is stale)
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { topicJsonSchemaText } from '../src/topic/json-schema.js';

const target = fileURLToPath(new URL('../topics/topic.schema.json', import.meta.url));
writeFileSync(target, topicJsonSchemaText());
process.stdout.write(`wrote ${target}\n`);
