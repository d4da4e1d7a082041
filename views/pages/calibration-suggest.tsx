// The calibration page's guidance: the criterion–metric pairs worth calibrating, a warning when the
// chosen pair is unusual, and the button that moves the threshold to the best one.
import type { PageContext } from '../layout.tsx';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { PairSuggestion, PairWarning } from '../../server/calibration/suggest.ts';
import type { ReportState } from './calibration.tsx';

export interface SuggestionsView { pairs: PairSuggestion[]; warning: PairWarning | null }

const href = (dataset: DatasetRow, p: { criterion: number; run: number; part: string; threshold?: number }) =>
  `/datasets/${dataset.id}/calibration?criterion=${p.criterion}&run=${p.run}&part=${p.part}${p.threshold !== undefined ? `&threshold=${p.threshold}` : ''}`;

export function CalibrationSuggestions({ ctx, dataset, state, view }: { ctx: PageContext; dataset: DatasetRow; state: ReportState; view: SuggestionsView }) {
  const { t } = ctx;
  const others = view.pairs.filter((p) => (!p.warning || p.reasons.includes('calibrated_before')) && !(p.criterion.id === state.criterion.id && p.run.id === state.run.id));
  return (
    <div class="suggestions">
      {view.warning && (
        <p class="alert" role="status">{t(`fh.pair_${view.warning}`, { criterion: state.criterion.name, metric: state.run.metric_key })}</p>
      )}
      {others.length > 0 && (
        <p class="sub">{t('fh.pairs_suggested')}{' '}
          {others.map((p) => (
            <a class="tag suggestion" href={href(dataset, { criterion: p.criterion.id, run: p.run.id, part: state.part })}>
              {`${p.criterion.name} × ${p.run.metric_key}`}{p.reasons.includes('calibrated_before') ? ` · ${t('fh.pair_before')}` : p.reasons.includes('names_match') ? ` · ${t('fh.pair_names')}` : ''}
            </a>
          ))}
        </p>
      )}
    </div>
  );
}

/** "Use the best threshold (0.44)": a plain link, so the slider, the URL and the report all move to it. */
export function BestThresholdButton({ ctx, dataset, state, best }: { ctx: PageContext; dataset: DatasetRow; state: ReportState; best: number | null }) {
  const { t } = ctx;
  if (best === null || Math.abs(best - state.threshold) < 1e-9) return null;
  return <a class="btn small" href={href(dataset, { criterion: state.criterion.id, run: state.run.id, part: state.part, threshold: best })}>{t('fh.use_best_threshold', { t: best.toFixed(2) })}</a>;
}
