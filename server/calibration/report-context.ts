// Per-context calibration: the judge's verdict on each retrieved context (the `verify` step of
// context_precision, kept in the score's trace) against the experts' gold value of a per-context
// binary criterion such as "relevant". Pure: takes one row per response, returns the figures.
//
// The unit is one retrieved context of one response. Its exclusions, counted in contexts, in order:
//   used_as_example  the response (any of its contexts) is a few-shot example of the run's prompts:
//                    the whole response is left out, its other verdicts were made with it in view
//   no_gold_label    the context has no gold value ('1' or '0')
//   judge_error      the response's score failed
//   no_score         no verdict for the context (skipped, not scored, or an imported run without traces)
// The binary figures are those of the response-level binary report (report-binary.ts) with the
// verdict as the score and a threshold of 0.5; best_threshold does not apply to a yes/no verdict.
// They are computed from the four (verdict, gold) counts, see binaryOverContexts.
//
// Contexts of one response are not independent (one question, one expert, often one document), so
// every interval comes from a bootstrap that resamples responses with all their contexts (stats'
// cluster-bootstrap.ts); resampling contexts would count 5 agreeing contexts of one response as 5
// independent pieces of evidence, and its intervals are too narrow (test/calibration/context-report.test.ts).
//
// By rank: the same agreement per rank (1-based; 5 stands for 5 and beyond), with the experts' and the
// judge's relevance rates over the same contexts, to see where in the list the judge goes wrong and
// whether relevant contexts sit low.
//
// Item level: Ragas's context precision Σ precision@k·v_k / Σ v_k (metrics/ragas-math.ts) of the
// experts' gold verdicts next to the run's score of the response. A response counts only when every
// one of its contexts has a gold value; partial gold and "no context relevant" (where the formula
// would give 0 by convention) are counted apart, never as a value.

import { contextPrecision } from '../metrics/ragas-math.ts';
import {
  accuracy, cellsOf, clusterCount, confusionCells, errorCells, kendallCells, mae, pearson, pearsonCells, rocAucCells, spearmanCells,
} from '../stats/index.ts';
import type { Cells, CellStat, Clusters, Confusion } from '../stats/index.ts';
import { CI_ORDER, type BinaryReport, type ScoreStatus } from './report.ts';
import { binaryFigureN, binaryIntervals, confusionFigures } from './report-binary.ts';
import {
  bootstrapIntervals, DEFAULT_RESAMPLES, DEFAULT_SEED, expertKappa, MIN_MEANINGFUL_N, one, spearmanOfCells, type ExclusionReason, type Interval, type NoteCode, type StatGroup,
} from './report-shared.ts';

/** One response of the run: its score and per-context verdicts, and the gold value of each of its contexts. */
export interface ContextResponse {
  id: number;
  scoreStatus: ScoreStatus;
  /** The run's score of the response (its context precision). */
  score: number | null;
  /** The judge's verdict per context in rank order, from the trace; null when the run kept none. */
  verdicts: readonly (0 | 1)[] | null;
  /** Gold value per retrieved context in rank order ('1', '0', or null when there is none). */
  gold: readonly (string | null)[];
}

export interface ContextReportInput {
  responses: readonly ContextResponse[];
  /** Responses used as few-shot examples: none of their contexts is counted. */
  exclude?: ReadonlySet<number>;
  resamples?: number;
  seed?: number;
}

/** Ranks are reported 1..RANKS, the last one holding every rank from RANKS on. */
export const RANKS = 5;
export const CONTEXT_THRESHOLD = 0.5;

export interface RankRow {
  rank: number;
  n: number;
  kappa: number | null;
  accuracy: number | null;
  /** Share of the rank's contexts the experts call relevant, and the judge. */
  gold_rate: number | null;
  judge_rate: number | null;
}

export interface ItemLevel {
  /** Responses compared: every context has gold, at least one is relevant, the judge scored it. */
  n: number;
  /** Every context has gold and none is relevant: Ragas's formula has no meaningful value. */
  no_relevant: number;
  /** Some of the response's contexts have gold, some not. */
  partial_gold: number;
  pearson: number | null;
  spearman: number | null;
  mae: number | null;
  ci95: { pearson: Interval | null; spearman: Interval | null; mae: Interval | null };
  /** Beyond the JSON contract, for the page: */
  /** Responses with no gold on any context, and those whose score failed or is missing. */
  no_gold: number;
  judge_error: number;
  no_score: number;
  /** Of the no_relevant responses, how many the judge also scored 0 (found nothing useful). */
  no_relevant_judge_zero: number;
  /** The compared responses: gold context precision, judge score. */
  points: { id: number; gold: number; judge: number }[];
}

export interface ContextReport extends BinaryReport {
  unit: 'context';
  ci_method: 'bootstrap over responses';
  /** Responses the counted contexts belong to (the resampled clusters). */
  responses: number;
  by_rank: RankRow[];
  item_level: ItemLevel;
}

/**
 * The counted contexts (usable gold and verdict) as columns, response by response in input order: half a
 * million of them are common, and objects would cost more to make and collect than the figures.
 */
interface Counted {
  n: number;
  /** Per context: its (verdict, gold) as verdict·2 + gold, and its rank (1-based). */
  combo: Uint8Array;
  rank: Uint32Array;
  /** The responses (clusters) the contexts belong to, each one's contexts contiguous. */
  clusters: Clusters;
}

function countContexts(input: ContextReportInput, excluded: Record<ExclusionReason, number>): Counted {
  const total = input.responses.reduce((sum, r) => sum + r.gold.length, 0);
  const combo = new Uint8Array(total);
  const rank = new Uint32Array(total);
  const offsets: number[] = [0];
  const seen = new Set<number>();
  let n = 0;
  for (const r of input.responses) {
    if (seen.has(r.id)) throw new RangeError(`calibration: response ${r.id} appears twice`);
    seen.add(r.id);
    const example = input.exclude?.has(r.id) ?? false;
    const verdicts = judged(r);
    const before = n;
    for (let i = 0; i < r.gold.length; i++) {
      const g = r.gold[i];
      if (example) excluded.used_as_example++;
      else if (g !== '1' && g !== '0') excluded.no_gold_label++;
      else if (r.scoreStatus === 'error') excluded.judge_error++;
      else if (!verdicts) excluded.no_score++;
      else {
        combo[n] = verdicts[i]! * 2 + (g === '1' ? 1 : 0);
        rank[n++] = i + 1;
      }
    }
    if (n > before) offsets.push(n);
  }
  const items = new Uint32Array(n);
  for (let i = 0; i < n; i++) items[i] = i;
  return { n, combo: combo.subarray(0, n), rank: rank.subarray(0, n), clusters: { offsets: Uint32Array.from(offsets), items } };
}

export function contextReport(input: ContextReportInput): ContextReport {
  const resamples = input.resamples ?? DEFAULT_RESAMPLES;
  const seed = input.seed ?? DEFAULT_SEED;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError('calibration: resamples must be a positive integer');
  const excluded: Record<ExclusionReason, number> = { used_as_example: 0, no_gold_label: 0, judge_error: 0, no_score: 0 };
  const counted = countContexts(input, excluded);
  const responses = clusterCount(counted.clusters);
  const binary = binaryOverContexts(counted, resamples, seed);
  // The intervals rest on the answers drawn: 20 contexts of 5 answers are 5 pieces of evidence, not 20.
  const meaningful = binary.meaningful && responses >= MIN_MEANINGFUL_N;
  const notes: NoteCode[] = meaningful || binary.notes.includes('too_few_items') ? binary.notes : ['too_few_items', ...binary.notes];
  return {
    kind: 'binary', n: counted.n, excluded, ...binary, meaningful, notes,
    unit: 'context', ci_method: 'bootstrap over responses', responses,
    by_rank: byRank(counted), item_level: itemLevel(input, resamples, seed),
  };
}

/**
 * The binary figures over contexts. Verdict and gold are both 0/1, so every context falls in one of four
 * (verdict, gold) cells and each figure is a function of the four counts: the point figures are the
 * resampling statistics of stats/resample-cells.ts evaluated on the full counts (no sort of half a million
 * contexts), and the same statistics give the intervals, resampled by response. For a 2×2 table Pearson,
 * Spearman and Kendall's τ-b are all the φ coefficient, and MAE is the share of disagreements.
 */
function binaryOverContexts({ n, combo, clusters }: Counted, resamples: number, seed: number) {
  // The cells present (cellsOf on the at most four distinct pairs), then each context's.
  const tally = [0, 0, 0, 0];
  for (const c of combo) tally[c]!++;
  const present = [0, 1, 2, 3].filter((c) => tally[c]! > 0);
  const small = cellsOf(present.map((c) => c >> 1), present.map((c) => c & 1));
  const cellOfCombo = new Uint32Array(4);
  present.forEach((c, i) => (cellOfCombo[c] = small.cellOf[i]!));
  const cellOf = new Uint32Array(n);
  for (let i = 0; i < n; i++) cellOf[i] = cellOfCombo[combo[i]!]!;
  const cells: Cells = { ...small, cellOf };
  const full = new Float64Array(small.x.length);
  present.forEach((c) => (full[cellOfCombo[c]!] = tally[c]!));
  const at = (stat: CellStat) => (n > 0 ? stat(full, n) : null);
  let c: Confusion = { tp: 0, fp: 0, tn: 0, fn: 0 };
  if (n > 0) confusionCells(cells, CONTEXT_THRESHOLD, (k) => ((c = k), 0))(full, n);
  const figures = confusionFigures(c, CONTEXT_THRESHOLD, { roc_auc: at(rocAucCells(cells)), best_threshold: null, best_threshold_kappa: null });
  const correlation = { pearson: at(pearsonCells(cells)), spearman: at(spearmanCells(cells)), kendall_tau_b: at(kendallCells(cells)) };
  const errors = { mae: at(errorCells(cells, 'mae')), rmse: at(errorCells(cells, 'rmse')) };
  // As in the response-level binary report: intervals on κ, accuracy, F1, alignment and ROC AUC only.
  const stats: StatGroup[] = [];
  binaryIntervals(cells, CONTEXT_THRESHOLD, figures, stats);
  const all = bootstrapIntervals(n, stats, resamples, seed, clusters);
  const notes: NoteCode[] = [];
  if (n < MIN_MEANINGFUL_N) notes.push('too_few_items');
  if (n > 1 && (tally[0]! + tally[1]! === 0 || tally[2]! + tally[3]! === 0)) notes.push('constant_scores');
  if (n > 1 && (tally[1]! + tally[3]! === 0 || tally[0]! + tally[2]! === 0)) notes.push('constant_gold');
  notes.push('gold_as_0_1');
  return {
    ...correlation, ...errors, ...figures,
    ci95: Object.fromEntries(CI_ORDER.filter((k) => k in all).map((k) => [k, all[k]!])),
    figure_n: { pearson: n, spearman: n, kendall_tau_b: n, mae: n, rmse: n, ...binaryFigureN(c, n) },
    meaningful: n >= MIN_MEANINGFUL_N, notes,
  };
}

function byRank({ n, combo, rank }: Counted): RankRow[] {
  let top = 0;
  for (let i = 0; i < n; i++) top = Math.max(top, Math.min(rank[i]!, RANKS));
  const at = Array.from({ length: top }, () => ({ c: { tp: 0, fp: 0, tn: 0, fn: 0 } as Confusion, gold: 0, judge: 0 }));
  for (let i = 0; i < n; i++) {
    const r = at[Math.min(rank[i]!, RANKS) - 1]!;
    const verdict = combo[i]! >> 1, gold = combo[i]! & 1;
    r.gold += gold;
    r.judge += verdict;
    if (gold === 1) verdict === 1 ? r.c.tp++ : r.c.fn++;
    else verdict === 1 ? r.c.fp++ : r.c.tn++;
  }
  return at.map(({ c, gold, judge }, i) => {
    const k = c.tp + c.fp + c.tn + c.fn;
    return { rank: i + 1, n: k, kappa: k ? expertKappa(c) : null, accuracy: accuracy(c), gold_rate: k ? gold / k : null, judge_rate: k ? judge / k : null };
  });
}

function itemLevel(input: ContextReportInput, resamples: number, seed: number): ItemLevel {
  const counts = { no_relevant: 0, partial_gold: 0, no_gold: 0, judge_error: 0, no_score: 0, no_relevant_judge_zero: 0 };
  const points: ItemLevel['points'] = [];
  for (const r of input.responses) {
    if (input.exclude?.has(r.id) || r.gold.length === 0) continue;
    let usable = 0, relevant = 0;
    for (const g of r.gold) {
      if (g === '1') relevant++;
      if (g === '1' || g === '0') usable++;
    }
    const scored = r.scoreStatus === 'ok' && typeof r.score === 'number' && Number.isFinite(r.score);
    if (usable === 0) counts.no_gold++;
    else if (usable < r.gold.length) counts.partial_gold++;
    else if (relevant === 0) {
      counts.no_relevant++;
      if (scored && r.score === 0) counts.no_relevant_judge_zero++;
    } else if (r.scoreStatus === 'error') counts.judge_error++;
    else if (!scored) counts.no_score++;
    else points.push({ id: r.id, gold: contextPrecision(r.gold.map((g) => (g === '1' ? 1 : 0))).value!, judge: r.score! });
  }
  const x = Float64Array.from(points, (p) => p.judge);
  const g = Float64Array.from(points, (p) => p.gold);
  const n = points.length;
  const cells = cellsOf(x, g);
  const figures = { pearson: pearson(x, g), spearman: spearmanOfCells(x, g, cells), mae: mae(x, g) };
  const stats: StatGroup[] = [
    one('pearson', figures.pearson === null ? null : cells, pearsonCells),
    one('spearman', figures.spearman === null ? null : cells, spearmanCells),
    one('mae', n > 0 ? cells : null, (c) => errorCells(c, 'mae')),
  ];
  const ci = bootstrapIntervals(n, stats, resamples, seed);
  return { n, ...counts, ...figures, ci95: { pearson: ci.pearson ?? null, spearman: ci.spearman ?? null, mae: ci.mae ?? null }, points };
}

/** The judge's verdicts of a response when they count: it was scored, with one verdict per context. */
function judged(r: ContextResponse): readonly (0 | 1)[] | null {
  return r.scoreStatus === 'ok' && r.verdicts !== null && r.verdicts.length === r.gold.length ? r.verdicts : null;
}

/** The judge against the gold value of one context; null when one of them is missing. */
export function compareContext(row: ContextResponse, index: number): { gold: '1' | '0'; judge: 0 | 1; disagrees: boolean } | null {
  const gold = row.gold[index];
  const judge = judged(row)?.[index];
  if ((gold !== '1' && gold !== '0') || judge === undefined) return null;
  return { gold, judge, disagrees: String(judge) !== gold };
}

/** The per-context keys of `report --json`, after the binary ones: exactly these, in this order. */
export function contextJson(report: ContextReport): Record<string, unknown> {
  const { n, no_relevant, partial_gold, pearson, spearman, mae, ci95 } = report.item_level;
  return {
    unit: report.unit, ci_method: report.ci_method,
    by_rank: report.by_rank.map(({ rank, n, kappa, accuracy, gold_rate, judge_rate }) => ({ rank, n, kappa, accuracy, gold_rate, judge_rate })),
    item_level: { n, no_relevant, partial_gold, pearson, spearman, mae, ci95 },
  };
}

export function isContextReport(report: object): report is ContextReport {
  return (report as { unit?: unknown }).unit === 'context';
}
