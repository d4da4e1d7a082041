// The true score's line on a dataset's overview: the corrected estimate next to the judge's own
// mean and the sample's progress, with the way to the full section on the calibration page.
import type { PageContext } from '../layout.tsx';
import type { Figure } from '../../server/estimate/compute.ts';

export interface EstimateOverviewModel {
  datasetId: number;
  criterionId: number;
  runId: number;
  criterion: string;
  run: string;
  hasSample: boolean;
  corrected: Figure;
  judge: Figure;
  completed: number;
  drawn: number;
}

const show = (f: Figure) => (f.estimate === null ? '—' : `${f.estimate.toFixed(3)}${f.ci95 ? ` [${f.ci95[0].toFixed(3)}, ${f.ci95[1].toFixed(3)}]` : ''}`);

export function EstimateOverview({ ctx, m }: { ctx: PageContext; m: EstimateOverviewModel }) {
  const { t } = ctx;
  const href = `/datasets/${m.datasetId}/calibration?criterion=${m.criterionId}&run=${m.runId}#true-score`;
  return (
    <section class="card true-score-overview" aria-labelledby="true-score-heading">
      <div>
        <h2 id="true-score-heading">{t('est.title')}</h2>
        <p>{m.hasSample
          ? t('est.overview', { criterion: m.criterion, run: m.run, corrected: show(m.corrected), judge: show(m.judge), completed: m.completed, drawn: m.drawn })
          : t('est.overview_no_sample')}</p>
      </div>
      <div class="actions"><a class="btn small" href={href}>{t('est.overview_open')}</a></div>
    </section>
  );
}
