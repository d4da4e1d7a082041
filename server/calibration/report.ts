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

import type { CriterionKind } from '../criteria/values.ts';
import {
  accuracy, bestThreshold, cellsOf, cohenKappa, confusionAt, confusionCells, createRng, errorCells, evalGenAlignment, f1, kappaCells,
  kappaFromConfusion, kendallCells, kendallTauB, mae, onIndices, pearson, pearsonCells, precision, quantileSorted, recall, rmse, rocAuc,
  rocAucCells, spearman, spearmanCells,
} from '../stats/index.ts';
import type { Cells, CellStat, Confusion, IndexStat } from '../stats/index.ts';

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

/**
 * Which scale an ordinal criterion's scores are on: 'criterion' when every score is an integer
 * point of the scale, else 'unit' when every score is in 0..1, else 'criterion' when every score
 * lies within the scale (e.g. averaged grades), else 'other'. Integer points win over 0..1 so a
 * 0..4 rubric that happens to give only 0s and 1s is read on its own scale.
 */
export function scoreScaleOf(scores: ArrayLike<number>, scale: { min: number; max: number }): 'criterion' | 'unit' | 'other' {
  let integral = true, unit = true, within = true;
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!;
    if (s < scale.min || s > scale.max) within = false;
    if (!Number.isInteger(s)) integral = false;
    if (s < 0 || s > 1) unit = false;
  }
  if (within && integral) return 'criterion';
  if (unit && scale.max > scale.min) return 'unit';
  return within ? 'criterion' : 'other';
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
  common.pearson = pearson(x, g);
  common.spearman = spearman(x, g);
  common.kendall_tau_b = kendallTauB(x, g);
  // Every resampled figure is a function of the (score, gold) pairs drawn: one cell count per
  // resample serves them all (stats/resample-cells.ts).
  const cells = cellsOf(x, g);
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

/**
 * κ against the experts, null when the experts used one verdict only: κ is then 0 whatever the
 * judge does (or undefined), which would read as "no agreement" for a judge that may agree on
 * every item but one. The same rule holds for ordinal and categorical κ, and on every resample.
 */
function expertKappa(c: Confusion): number | null {
  return c.tp + c.fn === 0 || c.tn + c.fp === 0 ? null : kappaFromConfusion(c);
}

function binaryFigures(x: Float64Array, g: Float64Array, cells: Cells, threshold: number, stats: StatGroup[]) {
  const pass = Array.from(g, (v) => v === 1);
  const c = confusionAt(x, pass, threshold);
  const eg = evalGenAlignment(c);
  const best = bestThreshold(x, pass);
  const figures = {
    threshold,
    accuracy: accuracy(c),
    precision: precision(c),
    recall: recall(c),
    f1: f1(c),
    cohen_kappa: expertKappa(c),
    roc_auc: rocAuc(x, pass),
    best_threshold: best?.threshold ?? null,
    best_threshold_kappa: best?.kappa ?? null,
    confusion: c,
    coverage: eg.coverage,
    false_failure_rate: eg.false_failure_rate,
    alignment: eg.alignment,
  };
  // One confusion count per resample serves all four confusion-based figures; a figure undefined
  // on the full sample gets no interval.
  const metrics: [string, (c: Confusion) => number | null, number | null][] = [
    ['accuracy', accuracy, figures.accuracy],
    ['f1', f1, figures.f1],
    ['cohen_kappa', expertKappa, figures.cohen_kappa],
    ['alignment', (k) => evalGenAlignment(k).alignment, figures.alignment],
  ];
  const defined = metrics.filter((m) => m[2] !== null);
  for (const [name, , value] of metrics) if (value === null) stats.push(one(name, null));
  if (defined.length > 0) {
    const out = new Array<number | null>(defined.length).fill(null);
    let current: Confusion | null = null;
    const counts = confusionCells(cells, threshold, (k) => ((current = k), 0));
    stats.push({
      names: defined.map((m) => m[0]),
      cells,
      stat: (w, m) => {
        counts(w, m);
        for (let k = 0; k < defined.length; k++) out[k] = defined[k]![1](current!);
        return out;
      },
    });
  }
  stats.push(one('roc_auc', figures.roc_auc === null ? null : cells, rocAucCells));
  const n = x.length;
  const figure_n = {
    accuracy: n, precision: c.tp + c.fp, recall: c.tp + c.fn, f1: n, cohen_kappa: n, roc_auc: n, best_threshold: n,
    coverage: c.tn + c.fp, false_failure_rate: c.tp + c.fn, alignment: n,
  };
  return { figures, figure_n };
}

function ordinalFigures(x: Float64Array, g: Float64Array, cells: Cells, prep: PreparedCalibration, override: ScoreScale, notes: NoteCode[], stats: StatGroup[]) {
  const scale = prep.scale;
  if (!scale) {
    stats.push(one('quadratic_kappa', null));
    return { figures: { quadratic_kappa: null, scale: null }, errorGold: null };
  }
  const on = override === 'auto' ? scoreScaleOf(x, scale) : override;
  let errorGold: Float64Array | null = g;
  if (on === 'unit') {
    if (scale.max > scale.min) {
      errorGold = g.map((v) => (v - scale.min) / (scale.max - scale.min));
      notes.push('gold_rescaled_to_unit_interval');
    } else {
      errorGold = null;
      notes.push('score_scale_differs');
    }
  } else if (on === 'other') {
    errorGold = null;
    notes.push('score_scale_differs');
  }
  let quadratic_kappa: number | null = null;
  let kappaOn: Cells | null = null;
  const onPoints = on === 'criterion' && x.every((s) => Number.isInteger(s) && s >= scale.min && s <= scale.max);
  if (onPoints) {
    const points = prep.categories.map(Number);
    quadratic_kappa = isConstant(g) ? null : cohenKappa(Array.from(g), Array.from(x), { weights: 'quadratic', categories: points });
    if (quadratic_kappa !== null) kappaOn = cells;
  } else if (x.length > 0) {
    notes.push('scores_not_on_scale_points');
  }
  stats.push(one('quadratic_kappa', kappaOn, (c) => kappaCells(c, scale.min, scale.max - scale.min + 1, 'quadratic')));
  return { figures: { quadratic_kappa, scale: { ...scale, scores_on: on } }, errorGold };
}

function categoricalFigures(items: CalibrationItem[], categories: string[], notes: NoteCode[], stats: StatGroup[]) {
  const index = new Map(categories.map((c, i) => [c, i]));
  const k = categories.length;
  if (!items.every((it) => index.has(it.label!))) {
    notes.push('judge_labels_outside_categories');
    stats.push(one('categorical_kappa', null));
    return { kappa: null, matrix: null, categories };
  }
  const rows = Uint32Array.from(items, (it) => index.get(it.gold)!);
  const cols = Uint32Array.from(items, (it) => index.get(it.label!)!);
  const matrix = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (let i = 0; i < rows.length; i++) matrix[rows[i]!]![cols[i]!]! += 1;
  const oneGold = new Set(items.map((it) => it.gold)).size === 1;
  if (oneGold && items.length > 1) notes.push('constant_gold');
  const kappa = oneGold ? null : cohenKappa(items.map((it) => it.gold), items.map((it) => it.label!), { categories });
  stats.push(one('categorical_kappa', kappa === null ? null : cellsOf(Float64Array.from(cols), Float64Array.from(rows)), (c) => kappaCells(c, 0, k, 'none')));
  return { kappa, matrix, categories };
}

/**
 * Cohen's κ (unweighted or quadratic) over pre-coded category indices, for resampling: one
 * k×k count per resample, same disagreement form as stats' cohenKappa. Null on a resample whose
 * rows (the gold) all fall in one category, as in expertKappa.
 */
export function weightedKappaOn(rows: Uint32Array, cols: Uint32Array, k: number, weights: 'none' | 'quadratic'): IndexStat {
  if (rows.length !== cols.length) throw new RangeError('weightedKappaOn: rows and cols must have equal lengths');
  const cells = cellsOf(Float64Array.from(cols), Float64Array.from(rows));
  return onIndices(cells, kappaCells(cells, 0, k, weights));
}

/** Statistics computed together on each resample (e.g. several figures from one confusion count); null when undefined on the full sample. */
interface StatGroup {
  names: readonly string[];
  /** The cells the resample is counted in (shared by most groups: one count per resample). */
  cells: Cells | null;
  stat: ((w: Float64Array, m: number) => ArrayLike<number | null>) | null;
}

/** One figure: `make(cells)` on the given cells, or no interval when cells is null. */
function one(name: string, cells: Cells | null, make?: (c: Cells) => CellStat): StatGroup {
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
 */
function bootstrapIntervals(n: number, groups: readonly StatGroup[], resamples: number, seed: number): Record<string, Interval | null> {
  const out: Record<string, Interval | null> = {};
  for (const g of groups) for (const name of g.names) out[name] = null;
  const live = groups.filter((g) => g.stat !== null && g.cells !== null && n > 0);
  if (live.length === 0) return out;
  // One count per distinct cell assignment (cells derived for errors share their item → cell map).
  const counts = new Map<Uint32Array, Float64Array>();
  for (const g of live) if (!counts.has(g.cells!.cellOf)) counts.set(g.cells!.cellOf, new Float64Array(g.cells!.x.length));
  const weights = live.map((g) => counts.get(g.cells!.cellOf)!);
  const tallies = [...counts.entries()];
  const rng = createRng(seed);
  const idx = new Uint32Array(n);
  const values = live.map((g) => g.names.map(() => new Float64Array(resamples)));
  const valid = live.map((g) => new Uint32Array(g.names.length));
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < n; i++) idx[i] = Math.floor(rng() * n);
    for (const [cellOf, w] of tallies) {
      w.fill(0);
      for (let i = 0; i < n; i++) w[cellOf[idx[i]!]!]! += 1;
    }
    for (let s = 0; s < live.length; s++) {
      const vs = live[s]!.stat!(weights[s]!, n);
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

function isConstant(v: Float64Array): boolean {
  for (let i = 1; i < v.length; i++) if (v[i] !== v[0]) return false;
  return true;
}

/**
 * Cohen's κ of judge (score >= t) against expert at `steps` evenly spaced thresholds from
 * min(0, lowest score) to max(1, highest score), for the κ-vs-threshold chart. κ is null where
 * undefined (no items, or judge and experts all give one and the same verdict). One sort, then a
 * binary search per threshold.
 */
export function kappaCurve(scores: ArrayLike<number>, labels: ArrayLike<boolean>, steps = 101): { threshold: number; kappa: number | null }[] {
  if (scores.length !== labels.length) throw new RangeError('kappaCurve: scores and labels must have equal lengths');
  if (!Number.isInteger(steps) || steps < 2) throw new RangeError('kappaCurve: steps must be an integer >= 2');
  const n = scores.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => scores[i]! - scores[j]!);
  const sorted = Float64Array.from(order, (i) => scores[i]!);
  if (!sorted.every(Number.isFinite)) throw new RangeError('kappaCurve: scores must be finite');
  const posBelow = new Uint32Array(n + 1); // expert passes among the k lowest scores
  for (let k = 0; k < n; k++) posBelow[k + 1] = posBelow[k]! + (labels[order[k]!] ? 1 : 0);
  const totalPos = posBelow[n]!;
  const lo = Math.min(0, n ? sorted[0]! : 0);
  const hi = Math.max(1, n ? sorted[n - 1]! : 1);
  const out: { threshold: number; kappa: number | null }[] = [];
  for (let s = 0; s < steps; s++) {
    const t = s === steps - 1 ? hi : lo + ((hi - lo) * s) / (steps - 1);
    let a = 0, b = n; // first position with score >= t
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (sorted[mid]! < t) a = mid + 1;
      else b = mid;
    }
    const fn = posBelow[a]!;
    const c: Confusion = { tp: totalPos - fn, fn, tn: a - fn, fp: n - a - (totalPos - fn) };
    out.push({ threshold: t, kappa: kappaFromConfusion(c) });
  }
  return out;
}
