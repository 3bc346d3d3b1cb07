import type { StrategyConfig } from '../../src/strategy/strategy.js';
import { TopicSchema } from '../../src/topic/topic-schema.js';

/** The strategy slice a default topic gets (schema defaults), with overrides. */
export function strategyConfig(over: Partial<StrategyConfig> = {}): StrategyConfig {
  const t = TopicSchema.parse({ name: 't', seeds: ['http://a.test/'], keywords: { a: 1 } });
  return { ...t.strategy, location: t.location, ...over };
}
