// Categorical figures of a calibration report: Cohen's κ and the k×k matrix of gold against judged category.

import { cellsOf, cohenKappa, kappaCells, onIndices } from '../stats/index.ts';
import type { IndexStat } from '../stats/index.ts';
import type { CalibrationItem } from './report.ts';
import { one, type NoteCode, type StatGroup } from './report-shared.ts';

export function categoricalFigures(items: CalibrationItem[], categories: string[], notes: NoteCode[], stats: StatGroup[]) {
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

