import type { RevisitClassConfig } from './revisit-policy.js';

const DAY_MS = 86_400_000;

/** The built-in classes (also the topic schema's defaults for `revisit.classes`). */
export const DEFAULT_REVISIT_CLASSES: readonly RevisitClassConfig[] = Object.freeze([
  {
    name: 'home',
    patterns: ['^https?://[^/]+/?(index\\.[a-z0-9]+|default\\.[a-z0-9]+|home\\.[a-z0-9]+)?(\\?[^#]*)?$'],
    initial_ms: DAY_MS, min_ms: 3_600_000, max_ms: 7 * DAY_MS,
  },
  {
    name: 'list',
    patterns: [
      '/(category|categories|tag|tags|archive|archives|list|lists|section|sections|topic|topics|channel|channels|label|labels)(/|\\?|$)',
      '/(news|blog|articles|posts|stories|forum|forums)/?(\\?[^#]*)?$',
      '[?&](page|pg|paged|start|offset)=\\d+',
      '/page/\\d+/?$',
    ],
    initial_ms: DAY_MS, min_ms: 3_600_000, max_ms: 7 * DAY_MS,
  },
  {
    name: 'product',
    patterns: ['/(product|products|item|items|dp|sku|goods)/[^/?#]+', '[?&](product_id|productid|item_id|itemid|sku|pid)='],
    initial_ms: 3 * DAY_MS, min_ms: 6 * 3_600_000, max_ms: 30 * DAY_MS,
  },
  {
    name: 'content',
    patterns: ['/(19|20)\\d{2}/\\d{1,2}/', '/(article|articles|post|posts|story|stories|news|blog|wiki|doc|docs)/[^/?#]+'],
    initial_ms: 7 * DAY_MS, min_ms: DAY_MS, max_ms: 60 * DAY_MS,
  },
].map((c) => Object.freeze({ ...c, patterns: Object.freeze(c.patterns) })));
