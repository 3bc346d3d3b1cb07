/**
 * Fish-Search life (seed 003): seeds start at max life; a relevant page gives its children
 * life + 1 (capped at max), an irrelevant one life − 1. A child whose life reaches 0 is not
 * enqueued (it is recorded as pruned, and revived if a better parent finds it later).
 */
export function childLife(parentLife: number, parentRelevant: boolean, maxLife: number): number {
  return parentRelevant ? Math.min(maxLife, parentLife + 1) : Math.max(0, parentLife - 1);
}
