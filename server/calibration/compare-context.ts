// Two runs of a context precision metric (A = current prompt, B = candidate) against the same per-context
// gold: both reports on exactly the contexts usable in both, the contexts whose verdict flipped each way,
// and a paired test that respects the clusters: a paired bootstrap over responses (each resample draws
// whole responses with all their contexts, the same for A and B) of κ(B) − κ(A) and of the agreement
// (accuracy) B − A. McNemar's test would treat the contexts of one response as independent pairs.
// The verdict reads κ, or the agreement where κ is undefined (the experts gave one value only).
import { accuracy, clustersOf, confusionMetricOn, pairedClusterBootstrap, type PairedBootstrapResult } from '../stats/index.ts';
import { ALPHA, type Verdict } from './compare.ts';
import type { ContextRow } from './context-service.ts';
import { compareContext, contextReport, CONTEXT_THRESHOLD, type ContextReport } from './report-context.ts';
import { DEFAULT_RESAMPLES, DEFAULT_SEED, expertKappa, MIN_MEANINGFUL_N } from './report-shared.ts';

export interface ContextRef { responseId: number; index: number }

export interface ContextComparison {
  /** Contexts compared: gold and a verdict in both runs, their response not an example of either. */
  n: number;
  responses: number;
  meaningful: boolean;
  /** Contexts usable in one run only. */
  not_in_both: number;
  a: ContextReport;
  b: ContextReport;
  /** to_agree: B agrees with the experts where A did not; to_disagree the reverse. By rank, then response. */
  flipped: { to_agree: ContextRef[]; to_disagree: ContextRef[] };
  test: { kappa: PairedBootstrapResult | null; accuracy: PairedBootstrapResult | null; on: 'kappa' | 'accuracy' };
  verdict: Verdict;
  alpha: number;
}

export function compareContextRuns(a: readonly ContextRow[], b: readonly ContextRow[], options: { exclude?: ReadonlySet<number>; resamples?: number; seed?: number } = {}): ContextComparison {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? DEFAULT_SEED;
  const inB = new Map(b.map((r) => [r.id, r]));
  const common: { responseId: number; index: number; gold: boolean; a: 0 | 1; b: 0 | 1 }[] = [];
  const keep = new Map<number, Set<number>>();
  for (const ra of a) {
    const rb = inB.get(ra.id);
    if (options.exclude?.has(ra.id) || !rb) continue;
    for (let i = 0; i < ra.gold.length; i++) {
      const ca = compareContext(ra, i);
      const cb = compareContext(rb, i);
      if (!ca || !cb) continue;
      if (ca.gold !== cb.gold) throw new RangeError(`compare: context ${i} of response ${ra.id} has different gold values in A and B`);
      common.push({ responseId: ra.id, index: i, gold: ca.gold === '1', a: ca.judge, b: cb.judge });
      let set = keep.get(ra.id);
      if (!set) keep.set(ra.id, (set = new Set()));
      set.add(i);
    }
  }
  const usable = (rows: readonly ContextRow[]) => rows.reduce((sum, r) => (options.exclude?.has(r.id) ? sum
    : sum + r.gold.reduce((k, _, i) => k + (compareContext(r, i) ? 1 : 0), 0)), 0);
  const n = common.length;

  // Both reports on exactly the compared contexts: the other contexts' gold is left out.
  const only = (rows: readonly ContextRow[]) => rows.filter((r) => keep.has(r.id)).map((r) => ({ ...r, gold: r.gold.map((g, i) => (keep.get(r.id)!.has(i) ? g : null)) }));
  const reportA = contextReport({ responses: only(a), resamples, seed });
  const reportB = contextReport({ responses: only(b), resamples, seed });

  const flipped = { to_agree: [] as ContextRef[], to_disagree: [] as ContextRef[] };
  for (const c of common) {
    const agreeA = (c.a === 1) === c.gold;
    const agreeB = (c.b === 1) === c.gold;
    if (agreeA !== agreeB) (agreeB ? flipped.to_agree : flipped.to_disagree).push({ responseId: c.responseId, index: c.index });
  }
  const order = (x: ContextRef, y: ContextRef) => x.index - y.index || x.responseId - y.responseId;
  flipped.to_agree.sort(order);
  flipped.to_disagree.sort(order);

  const clusters = clustersOf(common.map((c) => c.responseId));
  const gold = common.map((c) => c.gold);
  const va = common.map((c) => c.a);
  const vb = common.map((c) => c.b);
  const paired = (metric: Parameters<typeof confusionMetricOn>[3]) => (n === 0 ? null
    : pairedClusterBootstrap(clusters, confusionMetricOn(vb, gold, CONTEXT_THRESHOLD, metric), confusionMetricOn(va, gold, CONTEXT_THRESHOLD, metric), { resamples, seed }));
  const kappa = paired(expertKappa);
  const agreement = paired(accuracy);
  const on = kappa && kappa.p_value !== null ? 'kappa' : 'accuracy';
  const decisive = on === 'kappa' ? kappa : agreement;
  let verdict: Verdict = 'no_clear_difference';
  if (decisive && decisive.p_value !== null && decisive.p_value < ALPHA && decisive.diff !== 0) verdict = decisive.diff > 0 ? 'better' : 'worse';

  return {
    n, responses: clusters.offsets.length - 1, meaningful: n >= MIN_MEANINGFUL_N && clusters.offsets.length - 1 >= MIN_MEANINGFUL_N, not_in_both: usable(a) + usable(b) - 2 * n,
    a: reportA, b: reportB, flipped, test: { kappa, accuracy: agreement, on }, verdict, alpha: ALPHA,
  };
}
