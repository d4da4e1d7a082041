// Ordinal figures of a calibration report: which scale the scores are on, MAE/RMSE against the gold on
// that scale, and quadratic-weighted κ when the scores are the scale's points.

import { cohenKappa, kappaCells } from '../stats/index.ts';
import type { Cells } from '../stats/index.ts';
import type { PreparedCalibration, ScoreScale } from './report.ts';
import { isConstant, one, type NoteCode, type StatGroup } from './report-shared.ts';

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

export function ordinalFigures(x: Float64Array, g: Float64Array, cells: Cells, prep: PreparedCalibration, override: ScoreScale, notes: NoteCode[], stats: StatGroup[]) {
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

