// Seeded random data for the statistics tests (not a test file itself).

import { createRng } from '../../server/stats/bootstrap.ts';

export function randomInts(n: number, lo: number, hi: number, seed: number): number[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => lo + Math.floor(rng() * (hi - lo + 1)));
}

export function randomFloats(n: number, seed: number): number[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => rng());
}

/** y correlated with x plus integer noise, on a coarse grid so ties are frequent. */
export function correlatedInts(x: readonly number[], noise: number, seed: number): number[] {
  const rng = createRng(seed);
  return x.map((v) => v + Math.floor(rng() * (2 * noise + 1)) - noise);
}

export function randomBools(n: number, pTrue: number, seed: number): boolean[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => rng() < pTrue);
}

/** x plus Uniform(0, 1) noise. */
export function addNoise(x: readonly number[], seed: number): number[] {
  const rng = createRng(seed);
  return x.map((v) => v + rng());
}

/** Boolean labels that are true with probability base + slope·score. */
export function labelsFromScores(scores: readonly number[], base: number, slope: number, seed: number): boolean[] {
  const rng = createRng(seed);
  return scores.map((s) => rng() < base + slope * s);
}

/** Copies labels, flipping each with probability p. */
export function flipSome(labels: readonly boolean[], p: number, seed: number): boolean[] {
  const rng = createRng(seed);
  return labels.map((l) => (rng() < p ? !l : l));
}
