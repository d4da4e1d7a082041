// Calibration report: one criterion's gold labels against one metric's scores from one run.
// Pure: takes the joined (item, score, gold) rows, returns every figure with its n, what was
// left out and why, and 95 % percentile-bootstrap intervals. The key names are the CLI's
// `report --json` contract; a figure that cannot be computed is null, never a stand-in.
//
// Exclusion: each row is counted once, under the first reason that applies, in this order:
//   used_as_example  the item is a few-shot example of the prompt (never counted, whatever its state)
//   no_gold_label    no usable gold value: none, empty, or not a value of the criterion
//   judge_error      the judge call failed (status 'error')
//   no_score         the judge gave no score (status 'skipped'/'missing', or 'ok' without a value)
// so judge_error and no_score count only items that could otherwise have been measured.
//
// How figures are read per kind of criterion:
//   binary       gold '1' = expert pass, '0' = fail; the judge passes when score >= threshold.
//                Correlations and errors use the gold as 0/1: Pearson is then the point-biserial r
//                and RMSE² the Brier score of a probability-like score.
//   ordinal      gold is a scale point; correlations use raw values (they are scale-free). MAE/RMSE
//                need one scale: a score on the criterion's scale is compared as is, a 0..1 score
//                against the gold rescaled to (g − min)/(max − min) (note gold_rescaled_to_unit_interval),
//                any other score gives null. Quadratic-weighted κ only for integer scores on the scale.
//   numeric      gold and score as numbers.
//   categorical  the judge's category is `label`; κ and the k×k matrix (gold rows × judge columns)
//                only when every judged label is one of the criterion's categories.
// Every κ is null when the experts used one value only (it would be 0 whatever the judge did).
// Intervals: 95 % percentile bootstrap, `resamples` (default 1,000) draws from a fixed seed, the
// same draws for every figure, so a report is reproducible to the last digit.
// This module builds the response-level report (numeric inline); the figures of each kind are in
// report-binary.ts, report-ordinal.ts and report-categorical.ts, what they share in report-shared.ts.

import type { CriterionKind } from '../criteria/values.ts';
import { cellsOf, errorCells, fullSample, kendallCells, mae, pearson, pearsonCells, rmse, spearmanCells } from '../stats/index.ts';
import type { Cells } from '../stats/index.ts';
import { binaryFigures } from './report-binary.ts';
import { categoricalFigures } from './report-categorical.ts';
import { ordinalFigures } from './report-ordinal.ts';
import {
  bootstrapIntervals, DEFAULT_RESAMPLES, DEFAULT_SEED, DEFAULT_THRESHOLD, isConstant, MIN_MEANINGFUL_N, one, spearmanOfCells,
  type ExclusionReason, type Interval, type NoteCode, type StatGroup,
} from './report-shared.ts';
import type { Confusion } from '../stats/index.ts';

// The report's pieces live beside it by kind; importers keep one entry point.
export { DEFAULT_RESAMPLES, DEFAULT_SEED, DEFAULT_THRESHOLD, EXCLUSION_REASONS, MIN_MEANINGFUL_N } from './report-shared.ts';
export type { ExclusionReason, Interval, NoteCode } from './report-shared.ts';
export { kappaCurve } from './report-binary.ts';
export { scoreScaleOf } from './report-ordinal.ts';
export { weightedKappaOn } from './report-categorical.ts';

export type { CriterionKind } from '../criteria/values.ts';
export type ScoreStatus = 'ok' | 'error' | 'skipped' | 'missing';

/** One item: the judge's score for it in one run, and the experts' gold value. */
export interface CalibrationPair {
  id: number;
  score: number | null;
  scoreStatus: ScoreStatus;
  gold: string | null;
  /** The raw category the judge output (categorical criteria). */
  label?: string | null;
}

/** How an ordinal criterion's scores relate to its scale; 'auto' decides from the scores (see scoreScaleOf). */
export type ScoreScale = 'auto' | 'criterion' | 'unit';

export interface ReportInput {
  kind: CriterionKind;
  /** Categorical: the categories in order. Ordinal: the scale points as strings ('1'…'5'). */
  categories?: readonly string[];
  pairs: readonly CalibrationPair[];
  /** Binary: the judge passes when score >= threshold (default 0.5). */
  threshold?: number;
  /** Items used as few-shot examples: never counted. */
  exclude?: ReadonlySet<number>;
  resamples?: number;
  seed?: number;
  scoreScale?: ScoreScale;
}

interface CommonReport {
  kind: CriterionKind;
  n: number;
  excluded: Record<ExclusionReason, number>;
  pearson: number | null;
  spearman: number | null;
  kendall_tau_b: number | null;
  mae: number | null;
  rmse: number | null;
  /** Figure name → 95 % percentile-bootstrap interval; null when not computable. */
  ci95: Record<string, Interval | null>;
  /** Figure name → the number of items its value rests on (differs from n for e.g. precision). */
  figure_n: Record<string, number>;
  meaningful: boolean;
  notes: NoteCode[];
}

export interface BinaryReport extends CommonReport {
  kind: 'binary';
  threshold: number;
  accuracy: number | null;
  precision: number | null;
  recall: number | null;
  f1: number | null;
  cohen_kappa: number | null;
  roc_auc: number | null;
  best_threshold: number | null;
  best_threshold_kappa: number | null;
  confusion: Confusion;
  coverage: number | null;
  false_failure_rate: number | null;
  alignment: number | null;
}

export interface OrdinalReport extends CommonReport {
  kind: 'ordinal';
  quadratic_kappa: number | null;
  /** The criterion's scale, and which scale the scores were read on ('other': neither). */
  scale: { min: number; max: number; scores_on: 'criterion' | 'unit' | 'other' } | null;
}

export interface CategoricalReport extends CommonReport {
  kind: 'categorical';
  categorical: { kappa: number | null; matrix: number[][] | null; categories: string[] };
}

export interface NumericReport extends CommonReport {
  kind: 'numeric';
}

export type CalibrationReport = BinaryReport | OrdinalReport | CategoricalReport | NumericReport;

/** The figures that get a 95 % interval, in the order ci95 lists them (per kind, those that apply). */
export const CI_ORDER = [
  'pearson', 'spearman', 'kendall_tau_b', 'mae', 'rmse',
  'accuracy', 'f1', 'cohen_kappa', 'roc_auc', 'alignment', // binary
  'quadratic_kappa', // ordinal
  'categorical_kappa', // categorical
] as const;

/** An item that counts: usable gold and judge output. */
export interface CalibrationItem {
  id: number;
  /** Null only for categorical criteria, whose judged value is `label`. */
  score: number | null;
  label: string | null;
  gold: string;
  /** The gold as a number (binary 1/0, ordinal, numeric); null for categorical. */
  goldValue: number | null;
}

export interface PreparedCalibration {
  items: CalibrationItem[];
  excluded: Record<ExclusionReason, number>;
  /** Categorical categories, or ordinal scale points as strings; [] otherwise. */
  categories: string[];
  scale: { min: number; max: number } | null;
  notes: NoteCode[];
}

/** Applies the exclusion rules (see the module header) and parses gold values; items keep input order. */
export function prepareCalibration(input: Pick<ReportInput, 'kind' | 'categories' | 'pairs' | 'exclude'>): PreparedCalibration {
  const { kind, pairs } = input;
  const notes: NoteCode[] = [];
  const given = input.categories ? [...input.categories] : null;
  if (given && new Set(given).size !== given.length) throw new RangeError('calibration: duplicate category');
  let scale: { min: number; max: number } | null = null;
  if (kind === 'ordinal' && given) {
    const points = given.map(Number);
    if (points.length === 0 || !points.every(Number.isInteger)) throw new RangeError('calibration: ordinal scale points must be integers');
    scale = { min: Math.min(...points), max: Math.max(...points) };
  }
  const allowed = given && (kind === 'categorical' || kind === 'ordinal') ? new Set(given) : null;

  const excluded: Record<ExclusionReason, number> = { used_as_example: 0, no_gold_label: 0, judge_error: 0, no_score: 0 };
  const seen = new Set<number>();
  const items: CalibrationItem[] = [];
  let unreadable = 0;
  for (const p of pairs) {
    if (seen.has(p.id)) throw new RangeError(`calibration: item ${p.id} appears twice`);
    seen.add(p.id);
    if (input.exclude?.has(p.id)) {
      excluded.used_as_example++;
      continue;
    }
    const gold = p.gold?.trim() ?? '';
    if (gold === '') {
      excluded.no_gold_label++;
      continue;
    }
    const goldValue = parseGold(kind, gold);
    if ((kind !== 'categorical' && goldValue === null) || (allowed && !allowed.has(gold))) {
      excluded.no_gold_label++;
      unreadable++;
      continue;
    }
    if (p.scoreStatus === 'error') {
      excluded.judge_error++;
      continue;
    }
    const score = typeof p.score === 'number' && Number.isFinite(p.score) ? p.score : null;
    const label = typeof p.label === 'string' && p.label.trim() !== '' ? p.label.trim() : null;
    if (p.scoreStatus !== 'ok' || (kind === 'categorical' ? label === null : score === null)) {
      excluded.no_score++;
      continue;
    }
    items.push({ id: p.id, score, label, gold, goldValue });
  }
  if (unreadable > 0) notes.push('unreadable_gold_labels');

  let categories: string[] = [];
  if (kind === 'categorical') {
    categories = given ?? [...new Set(items.map((it) => it.gold))].sort();
    if (!given) notes.push('categories_from_gold');
  } else if (kind === 'ordinal') {
    if (!scale && items.length > 0) {
      const golds = items.map((it) => it.goldValue!);
      scale = { min: Math.min(...golds), max: Math.max(...golds) };
      notes.push('scale_from_gold');
    }
    if (scale) for (let v = scale.min; v <= scale.max; v++) categories.push(String(v));
  }
  return { items, excluded, categories, scale, notes };
}

function parseGold(kind: CriterionKind, gold: string): number | null {
  if (kind === 'categorical') return null;
  if (kind === 'binary') return gold === '1' ? 1 : gold === '0' ? 0 : null;
  const v = Number(gold);
  if (!Number.isFinite(v)) return null;
  return kind === 'ordinal' && !Number.isInteger(v) ? null : v;
}

/** Builds the report; see the module header for exclusions and how each kind is read. */
export function calibrationReport(input: ReportInput): CalibrationReport {
  const threshold = input.threshold ?? DEFAULT_THRESHOLD;
  const resamples = input.resamples ?? DEFAULT_RESAMPLES;
  const seed = input.seed ?? DEFAULT_SEED;
  if (!Number.isFinite(threshold)) throw new RangeError('calibration: threshold must be a finite number');
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError('calibration: resamples must be a positive integer');

  const prep = prepareCalibration(input);
  const { items, notes } = prep;
  const n = items.length;
  if (n < MIN_MEANINGFUL_N) notes.unshift('too_few_items');
  const stats: StatGroup[] = [];
  const common = {
    n,
    excluded: prep.excluded,
    pearson: null as number | null,
    spearman: null as number | null,
    kendall_tau_b: null as number | null,
    mae: null as number | null,
    rmse: null as number | null,
    ci95: {} as Record<string, Interval | null>,
    figure_n: {} as Record<string, number>,
    meaningful: n >= MIN_MEANINGFUL_N,
    notes,
  };
  const ci = () => {
    const all = bootstrapIntervals(n, stats, resamples, seed);
    return Object.fromEntries(CI_ORDER.filter((k) => k in all).map((k) => [k, all[k]!]));
  };

  if (input.kind === 'categorical') {
    notes.push('nominal_criterion');
    const categorical = categoricalFigures(items, prep.categories, notes, stats);
    for (const k of ['pearson', 'spearman', 'kendall_tau_b', 'mae', 'rmse']) stats.unshift(one(k, null));
    const report: CategoricalReport = { kind: 'categorical', ...common, categorical, figure_n: { categorical_kappa: n } };
    return { ...report, ci95: ci() };
  }

  const x = Float64Array.from(items, (it) => it.score!);
  const g = Float64Array.from(items, (it) => it.goldValue!);
  if (n > 1 && isConstant(x)) notes.push('constant_scores');
  if (n > 1 && isConstant(g)) notes.push('constant_gold');
  // Every resampled figure is a function of the (score, gold) pairs drawn: one cell count per
  // resample serves them all (stats/resample-cells.ts). The point figures read the same sorted
  // cells rather than sorting again; each equals its stats function (spearman, kendallTauB) exactly.
  const cells = cellsOf(x, g);
  common.pearson = pearson(x, g);
  common.spearman = spearmanOfCells(x, g, cells);
  common.kendall_tau_b = fullSample(cells, kendallCells(cells));
  // Intervals go on the headline figures: for a binary criterion those are κ, accuracy, F1, AUC and
  // alignment; its point-biserial correlations and errors are reported without one.
  const corr = input.kind === 'binary' ? null : cells;
  stats.push(one('pearson', common.pearson === null ? null : corr, pearsonCells));
  stats.push(one('spearman', common.spearman === null ? null : corr, spearmanCells));
  stats.push(one('kendall_tau_b', common.kendall_tau_b === null ? null : corr, kendallCells));
  for (const k of ['pearson', 'spearman', 'kendall_tau_b', 'mae', 'rmse']) common.figure_n[k] = n;

  let ordinal: Pick<OrdinalReport, 'quadratic_kappa' | 'scale'> | null = null;
  let errorGold: Float64Array | null = g;
  if (input.kind === 'ordinal') {
    const r = ordinalFigures(x, g, cells, prep, input.scoreScale ?? 'auto', notes, stats);
    ordinal = r.figures;
    errorGold = r.errorGold;
  }
  common.mae = errorGold ? mae(x, errorGold) : null;
  common.rmse = errorGold ? rmse(x, errorGold) : null;
  // Errors against a rescaled gold: same cells (the rescaling is increasing), other y values.
  const errorCellsOn = errorGold === g ? cells : errorGold && { ...cells, y: cells.y.map((v) => (v - prep.scale!.min) / (prep.scale!.max - prep.scale!.min)) };
  const errorCi = input.kind === 'binary' ? null : errorCellsOn;
  stats.push(one('mae', errorCi && n > 0 ? errorCi : null, (c) => errorCells(c, 'mae')));
  stats.push(one('rmse', errorCi && n > 0 ? errorCi : null, (c) => errorCells(c, 'rmse')));

  if (input.kind === 'binary') {
    notes.push('gold_as_0_1');
    const binary = binaryFigures(x, g, cells, threshold, stats);
    const figure_n = { ...common.figure_n, ...binary.figure_n };
    const report: BinaryReport = { kind: 'binary', ...common, ...binary.figures, figure_n };
    return { ...report, ci95: ci() };
  }
  if (ordinal) {
    const report: OrdinalReport = { kind: 'ordinal', ...common, ...ordinal, figure_n: { ...common.figure_n, quadratic_kappa: n } };
    return { ...report, ci95: ci() };
  }
  const report: NumericReport = { kind: 'numeric', ...common };
  return { ...report, ci95: ci() };
}

