// Bootstrap over clusters: when items come in groups that are not independent (the retrieved
// contexts of one response were judged against one question, by one expert), a resample draws whole
// groups with replacement and keeps every item of each group drawn (Davison & Hinkley 1997, §3.8,
// "resampling clusters"; Field & Welsh 2007 show it stays consistent under any correlation within a
// cluster). Resampling the items instead treats 5 contexts of a response that all agree as 5
// independent pieces of evidence, and its interval is too narrow.
//
// Same conventions as bootstrap.ts: a seeded stream, resamples where the statistic is null skipped,
// null below minValidFraction, type-7 quantiles. With one item per cluster the draws are exactly
// those of bootstrapCI / pairedBootstrap for the same seed, so the two agree to the last digit.

import { allIndices, createRng, pairedDifference, percentileInterval, resolveBootstrapOptions, type BootstrapOptions, type IndexStat, type PairedBootstrapResult } from './bootstrap.ts';

/** Items grouped into clusters: cluster c holds items[offsets[c] .. offsets[c + 1]). */
export interface Clusters {
  readonly offsets: Uint32Array;
  readonly items: Uint32Array;
}

/** Groups item indices 0..n-1 by their cluster key; clusters in order of first appearance. */
export function clustersOf(keys: ArrayLike<number>): Clusters {
  const order = new Map<number, number[]>();
  for (let i = 0; i < keys.length; i++) {
    const list = order.get(keys[i]!);
    if (list) list.push(i);
    else order.set(keys[i]!, [i]);
  }
  const offsets = new Uint32Array(order.size + 1);
  const items = new Uint32Array(keys.length);
  let c = 0, p = 0;
  for (const list of order.values()) {
    for (const i of list) items[p++] = i;
    offsets[++c] = p;
  }
  return { offsets, items };
}

export function clusterCount(clusters: Clusters): number {
  return clusters.offsets.length - 1;
}

/** The largest cluster's size: a resample holds at most k times as many items. */
function largest(clusters: Clusters): number {
  let max = 0;
  for (let c = 0; c + 1 < clusters.offsets.length; c++) max = Math.max(max, clusters.offsets[c + 1]! - clusters.offsets[c]!);
  return max;
}

/**
 * One resample's items into `idx`: k cluster draws, each cluster's items appended; returns how many
 * items were drawn. The cluster stream is the same rng calls bootstrap.ts uses for item draws.
 */
export function drawClusters(clusters: Clusters, rng: () => number, idx: Uint32Array): number {
  const k = clusterCount(clusters);
  const { offsets, items } = clusters;
  let m = 0;
  for (let j = 0; j < k; j++) {
    const c = Math.floor(rng() * k);
    for (let p = offsets[c]!; p < offsets[c + 1]!; p++) idx[m++] = items[p]!;
  }
  return m;
}

const valid = (v: number | null): v is number => v !== null && Number.isFinite(v);

/** Percentile interval of `stat` over resamples of whole clusters; null when there are none or too few valid resamples. */
export function clusterBootstrapCI(clusters: Clusters, stat: IndexStat, options: BootstrapOptions = {}): [number, number] | null {
  const o = resolveBootstrapOptions(options);
  const k = clusterCount(clusters);
  if (k === 0) return null;
  const rng = createRng(o.seed);
  const idx = new Uint32Array(k * largest(clusters));
  const values = new Float64Array(o.resamples);
  let count = 0;
  for (let r = 0; r < o.resamples; r++) {
    const m = drawClusters(clusters, rng, idx);
    const v = stat(idx.subarray(0, m));
    if (valid(v)) values[count++] = v;
  }
  if (count < 2 || count < o.minValidFraction * o.resamples) return null;
  return percentileInterval(values, count, o.alpha);
}

/**
 * Paired bootstrap of statA − statB over whole clusters: both statistics see the same drawn clusters,
 * so what makes a cluster hard cancels, and the clusters' inner dependence is kept. Same p-value rule
 * as pairedBootstrap. Null when the difference is undefined on the full sample.
 */
export function pairedClusterBootstrap(clusters: Clusters, statA: IndexStat, statB: IndexStat, options: BootstrapOptions = {}): PairedBootstrapResult | null {
  const o = resolveBootstrapOptions(options);
  const k = clusterCount(clusters);
  if (k === 0) return null;
  const rng = createRng(o.seed);
  const idx = new Uint32Array(k * largest(clusters));
  return pairedDifference(allIndices(clusters.items.length), () => idx.subarray(0, drawClusters(clusters, rng, idx)), statA, statB, o);
}
