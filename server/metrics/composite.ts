// Weighted combination of component metric scores into one composite score.
// A component that carries weight but has no value makes the whole composite
// unscored: silently dropping it would re-weight the rest, and treating it as 0
// would punish the item for a judging failure.

import { scored, unscored } from './score.ts';
import type { Score } from './score.ts';

export interface CompositeComponent {
  /** Metric name, reported in `detail` when the component is missing. */
  readonly name: string;
  readonly score: Score;
  /** Relative weight, finite and >= 0; weights are normalised by their sum. */
  readonly weight: number;
}

/**
 * Σ wᵢ·vᵢ / Σ wᵢ over the components. Components with weight 0 are ignored entirely (like Ragas
 * answer correctness, which needs no similarity when its weight is 0). If any weighted component is
 * unscored the result is null 'component_missing' with the missing names in `detail`.
 * Throws on invalid weights (negative, non-finite, or all zero): that is a configuration bug.
 */
export function composite(components: readonly CompositeComponent[]): Score {
  let weightSum = 0;
  for (const c of components) {
    if (!Number.isFinite(c.weight) || c.weight < 0) {
      throw new RangeError(`weight of ${c.name} must be a finite number >= 0 (got ${c.weight})`);
    }
    weightSum += c.weight;
  }
  if (weightSum === 0) throw new RangeError('a composite needs at least one component with a positive weight');

  let sum = 0;
  const missing: string[] = [];
  for (const c of components) {
    if (c.weight === 0) continue;
    if (c.score.value === null) missing.push(c.name);
    else sum += c.weight * c.score.value;
  }
  if (missing.length > 0) return unscored('component_missing', missing.join(', '));
  return scored(sum / weightSum);
}
