// McNemar's exact test for two systems (e.g. two judges, or judge vs. judge variant)
// graded right/wrong on the same items. Only discordant items carry information:
// b = items only A gets right, c = items only B gets right. Under H0 each discordant item
// is equally likely to go either way, so min(b, c) is a Bin(b + c, 1/2) tail:
//   p = min(1, 2 · P(X <= min(b, c))),  X ~ Bin(b + c, 0.5);  p = 1 when b + c = 0.

import { assertSameLength } from './basic.ts';

export interface McNemarResult {
  b: number;
  c: number;
  p_value: number;
}

export function mcnemarExact(b: number, c: number): McNemarResult {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0) {
    throw new RangeError('mcnemarExact: b and c must be non-negative integers');
  }
  const m = b + c;
  if (m === 0) return { b, c, p_value: 1 };
  return { b, c, p_value: Math.min(1, 2 * binomialHalfCdf(Math.min(b, c), m)) };
}

/** Discordant counts from per-item correctness of systems A and B, then {@link mcnemarExact}. */
export function mcnemarFromPairs(aCorrect: ArrayLike<boolean>, bCorrect: ArrayLike<boolean>): McNemarResult {
  assertSameLength(aCorrect, bCorrect, 'aCorrect and bCorrect');
  let b = 0;
  let c = 0;
  for (let i = 0; i < aCorrect.length; i++) {
    if (aCorrect[i] && !bCorrect[i]) b++;
    else if (!aCorrect[i] && bCorrect[i]) c++;
  }
  return mcnemarExact(b, c);
}

/**
 * P(X <= k) for X ~ Bin(m, 1/2). Terms C(m, j)/2^m are built in log space by the ratio
 * C(m, j+1) = C(m, j)(m − j)/(j + 1), since 2^m underflows for m beyond ~1,000, and are
 * summed relative to the largest term (the last one, as k <= m/2) to avoid underflow.
 */
function binomialHalfCdf(k: number, m: number): number {
  const logs = new Float64Array(k + 1);
  let logC = 0;
  for (let j = 0; j <= k; j++) {
    logs[j] = logC;
    logC += Math.log(m - j) - Math.log(j + 1);
  }
  const top = logs[k]!;
  let sum = 0;
  for (let j = 0; j <= k; j++) sum += Math.exp(logs[j]! - top);
  return Math.exp(top - m * Math.LN2 + Math.log(sum));
}
