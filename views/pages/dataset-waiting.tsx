// The dataset page's "what waits for whom": open label slots, expert disagreements, samples in review,
// each with who it waits for and the link that does it.
import type { PageContext } from '../layout.tsx';
import type { DatasetRow } from '../../server/datasets/queries.ts';
import type { LabellingSummary } from './dataset.tsx';
import type { Html } from '../jsx-runtime.ts';

export function WaitingCard({ ctx, dataset, s }: { ctx: PageContext; dataset: DatasetRow; s: LabellingSummary }) {
  const { t } = ctx;
  const w = s.waiting;
  const items: Html[] = [];
  if (s.responses === 0) items.push(<li>{t('fh.wait_no_responses')} <a href={`/datasets/${dataset.id}/import`}>{t('action.import')}</a></li>);
  else if (s.criteria === 0) items.push(<li>{t('fh.wait_no_criteria')} <a href={`/datasets/${dataset.id}/criteria`}>{t('criteria.title')}</a></li>);
  else if (w.labelsLeft > 0) items.push(<li><strong>{w.labelsLeft}</strong> {t('fh.wait_labels')} {w.canLabel && <span class="sub">{t('fh.wait_you_can_label')}</span>}</li>);
  if (w.disagreements > 0) {
    items.push(<li><strong>{w.disagreements}</strong> {t('fh.wait_disagreements')}{' '}
      {w.canAdjudicate ? <a href={`/datasets/${dataset.id}/disagreements`}>{t('fh.wait_adjudicate_now')}</a> : <span class="sub">{t('fh.wait_for_adjudicator')}</span>}</li>);
  }
  if (w.inReview > 0) {
    items.push(<li><strong>{w.inReview}</strong> {t('fh.wait_in_review')}{' '}
      {w.canReview && w.inReviewForYou > 0 ? <a href={`/datasets/${dataset.id}/inbox`}>{t('fh.wait_review_now', { n: w.inReviewForYou })}</a>
        : <span class="sub">{t('fh.wait_for_reviewer')}</span>}</li>);
  }
  if (items.length === 0) return null;
  return (
    <section class="card waiting" aria-labelledby="waiting-heading">
      <h2 id="waiting-heading">{t('fh.waiting_title')}</h2>
      <ul class="waiting-list">{items}</ul>
    </section>
  );
}
