// Pieces every kind of calibration report shares: exclusion reasons, remark codes, defaults, and the
// percentile bootstrap that computes all of a report's intervals from one stream of resamples.
// The kinds themselves: report.ts (response-level: the entry point and numeric), report-binary.ts,
// report-ordinal.ts, report-categorical.ts, report-context.ts (one retrieved context per unit).

import { clusterCount, indexStream, itemRanks, kappaFromConfusion, largestFirst, multinomial, pearson, quantileSorted } from '../stats/index.ts';
import type { Cells, CellStat, Clusters, Confusion, IndexStream } from '../stats/index.ts';

export const EXCLUSION_REASONS = ['used_as_example', 'no_gold_label', 'judge_error', 'no_score'] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];

/** Machine-readable remarks; the page translates them. */
export type NoteCode =
  | 'too_few_items' // n < MIN_MEANINGFUL_N: figures not yet meaningful
  | 'gold_as_0_1' // binary: correlations/errors use expert pass = 1, fail = 0
  | 'constant_scores' // every judge score equal: correlations undefined
  | 'constant_gold' // every gold value equal: correlations (and κ, AUC for binary) undefined
  | 'unreadable_gold_labels' // some gold values were not values of the criterion (counted as no_gold_label)
  | 'scale_from_gold' // ordinal without a scale: min/max taken from the gold values
  | 'categories_from_gold' // categorical without categories: taken from the gold values
  | 'gold_rescaled_to_unit_interval' // ordinal, 0..1 scores: MAE/RMSE against (g − min)/(max − min)
  | 'score_scale_differs' // ordinal: scores on neither scale, MAE/RMSE null
  | 'scores_not_on_scale_points' // ordinal: quadratic κ null, scores are not integer scale points
  | 'judge_labels_outside_categories' // categorical: κ and matrix null
  | 'nominal_criterion'; // categorical: correlations and errors do not apply

export type Interval = [number, number];

export const MIN_MEANINGFUL_N = 20;
export const DEFAULT_THRESHOLD = 0.5;
export const DEFAULT_RESAMPLES = 1000;
export const DEFAULT_SEED = 1;

/**
 * κ against the experts, null when the experts used one verdict only: κ is then 0 whatever the
 * judge does (or undefined), which would read as "no agreement" for a judge that may agree on
 * every item but one. The same rule holds for ordinal and categorical κ, and on every resample.
 */
export function expertKappa(c: Confusion): number | null {
  return c.tp + c.fn === 0 || c.tn + c.fp === 0 ? null : kappaFromConfusion(c);
}

/** Statistics computed together on each resample (e.g. several figures from one confusion count); null when undefined on the full sample. */
export interface StatGroup {
  names: readonly string[];
  /** The cells the resample is counted in (shared by most groups: one count per resample). */
  cells: Cells | null;
  stat: ((w: Float64Array, m: number) => ArrayLike<number | null>) | null;
}

/** One figure: `make(cells)` on the given cells, or no interval when cells is null. */
export function one(name: string, cells: Cells | null, make?: (c: Cells) => CellStat): StatGroup {
  if (!cells || !make) return { names: [name], cells: null, stat: null };
  const stat = make(cells);
  const out: (number | null)[] = [null];
  return { names: [name], cells, stat: (w, m) => ((out[0] = stat(w, m)), out) };
}

/**
 * Percentile bootstrap intervals for every statistic over the same resamples: one resample drawn
 * per round, shared by all, so 1,000 resamples cost one random stream, not one per figure; and
 * the resample is a count of the drawn (score, gold) cells, from which each statistic is a pass
 * over the cells rather than over the items. Same rules as stats' bootstrapCI (resamples where a
 * statistic is null skipped, null below half valid, type-7 quantiles).
 *
 * How a resample is drawn (see resampler): with at least DRAWS_PER_UNIT items per cell, its cell
 * counts are one multinomial draw, the distribution of counting n items drawn with replacement;
 * otherwise the n items are drawn from the index stream, and each interval then equals
 * bootstrapCI(n, stat, { resamples, seed }) to the last digit (the *On factories count the same cells).
 *
 * With `clusters`, a resample draws whole clusters (the contexts of one response) instead of items,
 * (as counts of cluster shapes when there are few shapes), and each interval is that of stats'
 * clusterBootstrapCI(clusters, stat, { resamples, seed }) — to the last digit when drawn one by one.
 */
export function bootstrapIntervals(n: number, groups: readonly StatGroup[], resamples: number, seed: number, clusters?: Clusters): Record<string, Interval | null> {
  const out: Record<string, Interval | null> = {};
  for (const g of groups) for (const name of g.names) out[name] = null;
  const live = groups.filter((g) => g.stat !== null && g.cells !== null && n > 0);
  if (live.length === 0) return out;
  if (clusters && clusters.items.length !== n) throw new RangeError('bootstrapIntervals: the clusters must hold the n items');
  // One count per distinct cell assignment (cells derived for errors share their item → cell map).
  const counts = new Map<Uint32Array, Float64Array>();
  for (const g of live) if (!counts.has(g.cells!.cellOf)) counts.set(g.cells!.cellOf, new Float64Array(g.cells!.x.length));
  const weights = live.map((g) => counts.get(g.cells!.cellOf)!);
  const tallies = [...counts.entries()];
  const resample = resampler(clusters ? clusterUnits(clusters, tallies) : itemUnits(n, tallies), tallies, indexStream(seed));
  const values = live.map((g) => g.names.map(() => new Float64Array(resamples)));
  const valid = live.map((g) => new Uint32Array(g.names.length));
  for (let r = 0; r < resamples; r++) {
    const m = resample();
    for (let s = 0; s < live.length; s++) {
      const vs = live[s]!.stat!(weights[s]!, m);
      const c = valid[s]!;
      for (let k = 0; k < vs.length; k++) {
        const v = vs[k];
        if (v !== null && v !== undefined && Number.isFinite(v)) values[s]![k]![c[k]!++] = v;
      }
    }
  }
  live.forEach((g, s) => {
    g.names.forEach((name, k) => {
      const count = valid[s]![k]!;
      if (count < 2 || count < 0.5 * resamples) return;
      const sorted = values[s]![k]!.subarray(0, count).sort();
      out[name] = [quantileSorted(sorted, 0.025)!, quantileSorted(sorted, 0.975)!];
    });
  });
  return out;
}

type Tally = [cellOf: Uint32Array, w: Float64Array];

/**
 * Below this many draws per unit a resample draws its n items (or k clusters) one by one; at or above it, the
 * units' counts as one multinomial. Measured at 100,000 draws (2026-12-02): a multinomial costs 0.13–0.6 µs
 * per unit (one binomial draw, a step per standard deviation), an index draw 4–7 ns, so the two cost about
 * the same at ~30 draws per unit (3,000 units: 485 vs 605 µs per resample; 300 units: 180 vs 565 µs).
 */
export const DRAWS_PER_UNIT = 32;

/**
 * Interchangeable draws: items (or clusters) that fall in the same cells of every tally form one unit, and a
 * resample is how often each unit was drawn. With one tally over items the units are its cells.
 */
interface Units {
  /** Draw (item or cluster) → its unit. */
  unitOf: Uint32Array;
  /** Per unit: how many items or clusters it holds. */
  size: Float64Array;
  /** Per unit: what one draw of it adds (its items, and per tally its cells with how many items in each); null when the units are the one tally's cells. */
  shapes: Shape[] | null;
}

interface Shape { members: number; tallies: { cells: Uint32Array; counts: Float64Array }[] }

function itemUnits(n: number, tallies: readonly Tally[]): Units {
  if (tallies.length > 1) {
    const each = Uint32Array.from({ length: n + 1 }, (_, i) => i);
    return clusterUnits({ offsets: each, items: each.subarray(0, n) }, tallies);
  }
  const [cellOf, w] = tallies[0]!;
  const size = new Float64Array(w.length);
  for (let i = 0; i < n; i++) size[cellOf[i]!]! += 1;
  return { unitOf: cellOf, size, shapes: null };
}

/**
 * Clusters whose items fall in the same cells are interchangeable, so they are grouped into types once.
 * With a handful of contexts per response and 0/1 verdicts and gold, there are a few dozen types. A
 * cluster's type is keyed by its items' cells, sorted, per tally (two characters per cell).
 */
function clusterUnits(clusters: Clusters, tallies: readonly Tally[]): Units {
  const k = clusterCount(clusters);
  const unitOf = new Uint32Array(k);
  const bySignature = new Map<string, number>();
  const shapes: Shape[] = [];
  const size: number[] = [];
  const { offsets, items } = clusters;
  let widest = 0;
  for (let c = 0; c < k; c++) widest = Math.max(widest, offsets[c + 1]! - offsets[c]!);
  const sorted = tallies.map(() => new Uint32Array(widest));
  for (let c = 0; c < k; c++) {
    const from = offsets[c]!, m = offsets[c + 1]! - from;
    let signature = '';
    tallies.forEach(([cellOf], j) => {
      const cells = sorted[j]!;
      for (let p = 0; p < m; p++) {
        const cell = cellOf[items[from + p]!]!;
        let q = p;
        for (; q > 0 && cells[q - 1]! > cell; q--) cells[q] = cells[q - 1]!;
        cells[q] = cell;
      }
      for (let p = 0; p < m; p++) signature += String.fromCharCode(cells[p]! & 0xffff, cells[p]! >>> 16);
      signature += '|';
    });
    let t = bySignature.get(signature);
    if (t === undefined) {
      bySignature.set(signature, (t = shapes.length));
      shapes.push({ members: m, tallies: sorted.map((cells) => runsOf(cells.subarray(0, m))) });
      size.push(0);
    }
    size[t]! += 1;
    unitOf[c] = t;
  }
  return { unitOf, size: Float64Array.from(size), shapes };
}

/** Sorted cells as distinct cells with how often each occurs. */
function runsOf(sorted: Uint32Array): { cells: Uint32Array; counts: Float64Array } {
  const cells: number[] = [];
  const counts: number[] = [];
  for (let p = 0; p < sorted.length; p++) {
    if (p > 0 && sorted[p] === sorted[p - 1]) counts[counts.length - 1]! += 1;
    else {
      cells.push(sorted[p]!);
      counts.push(1);
    }
  }
  return { cells: Uint32Array.from(cells), counts: Float64Array.from(counts) };
}

/**
 * One resample per call, counted into every tally; returns its size in items. Draws as many units as there
 * are items (clusters): with few units their counts are one multinomial draw (stats/multinomial.ts), the
 * same distribution of resamples as drawing the items; otherwise the draws of the index stream, counted
 * under their units (then identical to stats' bootstrapCI / clusterBootstrapCI for the same seed).
 */
function resampler({ unitOf, size, shapes }: Units, tallies: readonly Tally[], stream: IndexStream): () => number {
  const draws = unitOf.length;
  const k = size.length;
  const order = k * DRAWS_PER_UNIT <= draws ? largestFirst(size) : null;
  const uniform = () => stream.uniform();
  const drawn = shapes ? new Float64Array(k) : tallies[0]![1];
  return () => {
    if (order) multinomial(draws, size, order, drawn, uniform);
    else {
      drawn.fill(0);
      stream.count(draws, draws, unitOf, drawn);
    }
    if (!shapes) return draws;
    let m = 0;
    for (let u = 0; u < k; u++) m += drawn[u]! * shapes[u]!.members;
    tallies.forEach(([, w], j) => {
      w.fill(0);
      for (let u = 0; u < k; u++) {
        const times = drawn[u]!;
        if (times === 0) continue;
        const { cells, counts } = shapes[u]!.tallies[j]!;
        for (let e = 0; e < cells.length; e++) w[cells[e]!]! += times * counts[e]!;
      }
    });
    return m;
  };
}

/** spearman(x, y) with the ranks read off the cells (equal to it to the last bit): null when fewer than two items or either side is constant. */
export function spearmanOfCells(x: Float64Array, y: Float64Array, cells: Cells): number | null {
  if (x.length < 2 || isConstant(x) || isConstant(y)) return null;
  const ranks = itemRanks(cells);
  return pearson(ranks.x, ranks.y);
}

export function isConstant(v: Float64Array): boolean {
  for (let i = 1; i < v.length; i++) if (v[i] !== v[0]) return false;
  return true;
}

