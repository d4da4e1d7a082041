// Pieces every kind of calibration report shares: exclusion reasons, remark codes, defaults, and the
// percentile bootstrap that computes all of a report's intervals from one stream of resamples.
// The kinds themselves: report.ts (response-level: the entry point and numeric), report-binary.ts,
// report-ordinal.ts, report-categorical.ts, report-context.ts (one retrieved context per unit).

import { clusterCount, indexStream, kappaFromConfusion, quantileSorted } from '../stats/index.ts';
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
 * Percentile bootstrap intervals for every statistic over the same resamples: one index draw
 * per resample, shared by all, so 1,000 resamples cost one RNG stream, not one per figure; and
 * one count of the drawn (score, gold) cells, from which each statistic is a pass over the
 * cells rather than over the items. Same rules as stats' bootstrapCI (identical index stream
 * for a seed, resamples where a statistic is null skipped, null below half valid, type-7
 * quantiles), and the *On factories count the same cells, so each interval equals
 * bootstrapCI(n, stat, { resamples, seed }).
 *
 * With `clusters`, a resample draws whole clusters (the contexts of one response) instead of items,
 * and each interval equals stats' clusterBootstrapCI(clusters, stat, { resamples, seed }).
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
  const resample = clusters ? clusterResampler(clusters, tallies, indexStream(seed)) : itemResampler(n, tallies, indexStream(seed));
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

/** Draws n items and counts their cells in every tally; returns the resample's size. */
function itemResampler(n: number, tallies: readonly Tally[], stream: IndexStream): () => number {
  if (tallies.length === 1) {
    // The common case: draw and count in one loop, no index buffer.
    const [cellOf, w] = tallies[0]!;
    return () => {
      w.fill(0);
      stream.count(n, n, cellOf, w);
      return n;
    };
  }
  const idx = new Uint32Array(n);
  return () => {
    stream.indices(idx, n);
    for (const [cellOf, w] of tallies) {
      w.fill(0);
      for (let i = 0; i < n; i++) w[cellOf[idx[i]!]!]! += 1;
    }
    return n;
  };
}

/**
 * Draws k clusters (the numbers of stats' drawClusters, from the inline stream) and counts their items' cells.
 * Clusters whose items fall in the same cells are interchangeable, so they are grouped into types once: a
 * resample then costs one step per drawn cluster plus one per (type, cell), not one per drawn item.
 * With a handful of contexts per response and 0/1 verdicts and gold, there are a few dozen types.
 */
function clusterResampler(clusters: Clusters, tallies: readonly Tally[], stream: IndexStream): () => number {
  const k = clusterCount(clusters);
  const typeOf = new Uint32Array(k);
  const bySignature = new Map<string, number>();
  const entries: { cells: Uint32Array; counts: Float64Array }[][] = [];
  const sizes: number[] = [];
  for (let c = 0; c < k; c++) {
    const members = clusters.items.subarray(clusters.offsets[c]!, clusters.offsets[c + 1]!);
    const perTally = tallies.map(([cellOf]) => {
      const n = new Map<number, number>();
      for (const i of members) n.set(cellOf[i]!, (n.get(cellOf[i]!) ?? 0) + 1);
      return [...n.entries()].sort((a, b) => a[0] - b[0]);
    });
    const signature = perTally.map((e) => e.map(([cell, count]) => `${cell}x${count}`).join(',')).join('|');
    let t = bySignature.get(signature);
    if (t === undefined) {
      bySignature.set(signature, (t = entries.length));
      entries.push(perTally.map((e) => ({ cells: Uint32Array.from(e, (x) => x[0]), counts: Float64Array.from(e, (x) => x[1]) })));
      sizes.push(members.length);
    }
    typeOf[c] = t;
  }
  const drawn = new Float64Array(entries.length);
  return () => {
    drawn.fill(0);
    stream.count(k, k, typeOf, drawn); // k cluster draws, each counted under its cluster's type
    let m = 0;
    for (let t = 0; t < entries.length; t++) m += drawn[t]! * sizes[t]!;
    tallies.forEach(([, w], j) => {
      w.fill(0);
      for (let t = 0; t < entries.length; t++) {
        const times = drawn[t]!;
        if (times === 0) continue;
        const { cells, counts } = entries[t]![j]!;
        for (let e = 0; e < cells.length; e++) w[cells[e]!]! += times * counts[e]!;
      }
    });
    return m;
  };
}

export function isConstant(v: Float64Array): boolean {
  for (let i = 1; i < v.length; i++) if (v[i] !== v[0]) return false;
  return true;
}

