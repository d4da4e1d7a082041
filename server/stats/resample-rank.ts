// Index-based rank statistics (Spearman, Kendall, ROC AUC) for bootstrap resampling; see
// resample.ts for the plain ones. A resample is reduced to the multiplicities of its distinct
// (x, y) pairs, and ranks are recomputed by one pass over an order sorted once up front, so no
// resample needs a sort of its own (resample-cells.ts).

import { assertSameLength } from './basic.ts';
import type { IndexStat } from './bootstrap.ts';
import { cellsOf, kendallCells, onIndices, rocAucCells, spearmanCells } from './resample-cells.ts';

/** Spearman's rho on the indexed items (ties, including repeated draws, get average ranks). */
export function spearmanOn(x: ArrayLike<number>, y: ArrayLike<number>): IndexStat {
  const cells = cellsOf(x, y);
  return onIndices(cells, spearmanCells(cells));
}

/**
 * Kendall's tau-b on the indexed items, without sorting per resample: the distinct (x, y) pairs
 * are sorted once, and each resample walks them with their multiplicities, counting discordant
 * pairs with a Fenwick tree over y ranks. Repeated draws of one item are pairs tied in both x and y.
 */
export function kendallOn(x: ArrayLike<number>, y: ArrayLike<number>): IndexStat {
  const cells = cellsOf(x, y);
  return onIndices(cells, kendallCells(cells));
}

/** ROC AUC (ties count one half) on the indexed items; null when a class is absent from the resample. */
export function rocAucOn(scores: ArrayLike<number>, labels: ArrayLike<boolean>): IndexStat {
  assertSameLength(scores, labels, 'scores and labels');
  const cells = cellsOf(scores, Float64Array.from(labels, (l) => (l ? 1 : 0)));
  return onIndices(cells, rocAucCells(cells));
}
