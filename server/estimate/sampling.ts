// A uniformly random draw of k responses without replacement, reproducible from its seed: a partial
// Fisher–Yates shuffle of the frame (ids ascending) with the stats module's seeded generator. The
// order drawn is itself uniformly random, and is the order the labelling queue hands the items out,
// so a sample labelled only in part is still a random part of it. Pure.
import { createRng } from '../stats/bootstrap.ts';

export const MAX_SEED = 4294967295;

/** `k` ids of `frame` (all of them when k ≥ its size), in the order drawn. */
export function drawUniform(frame: readonly number[], k: number, seed: number): number[] {
  if (!Number.isInteger(k) || k < 0) throw new RangeError('drawUniform: k must be a non-negative integer');
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) throw new RangeError('drawUniform: seed must be an integer from 0 to 4294967295');
  const ids = [...frame].sort((a, b) => a - b);
  const take = Math.min(k, ids.length);
  const rng = createRng(seed);
  for (let i = 0; i < take; i++) {
    const j = i + Math.floor(rng() * (ids.length - i));
    const t = ids[i]!;
    ids[i] = ids[j]!;
    ids[j] = t;
  }
  return ids.slice(0, take);
}
