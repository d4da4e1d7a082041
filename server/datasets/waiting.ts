// What waits for whom in a dataset: label slots still wanted from experts, expert disagreements
// waiting for an adjudicator, samples in review waiting for a reviewer. The dataset page, the end of
// a labelling queue and the inbox show it, each with the link that does the next step.
import type { AppContext } from '../app-context.ts';
import type { DB } from '../db/connection.ts';
import type { DatasetRow } from './queries.ts';
import type { CurrentUser } from '../http/context.ts';
import { can } from '../http/security.ts';

export interface Waiting {
  /** Label slots still open (items × experts per item − submitted, counted up to the overlap). */
  labelsLeft: number;
  canLabel: boolean;
  /** Expert disagreements without a gold value yet. */
  disagreements: number;
  canAdjudicate: boolean;
  inReview: number;
  /** Samples in review this user may approve (not their own). */
  inReviewForYou: number;
  canReview: boolean;
}

export function waitingQueries(db: DB) {
  const s = {
    inReview: db.prepare<{ ds: number; me: number }, { n: number; mine: number }>(`SELECT count(*) AS n,
      count(*) FILTER (WHERE author_id = @me) AS mine FROM sample WHERE dataset_id = @ds AND status = 'in_review'`),
  };
  return { inReview: (datasetId: number, userId: number) => s.inReview.get({ ds: datasetId, me: userId })! };
}

export function waitingFor(app: AppContext, dataset: DatasetRow, user: CurrentUser | null): Waiting {
  const review = app.waiting.inReview(dataset.id, user?.id ?? 0);
  return {
    labelsLeft: Math.max(0, dataset.n_responses * dataset.overlap - dataset.slots_filled),
    canLabel: app.labels.canLabel(dataset.id, user),
    // Finding disagreements reads every item's labels: kept, and updated by the label service's writes.
    disagreements: app.labels.openDisagreements(dataset.id).count,
    canAdjudicate: app.labels.canAdjudicate(dataset.id, user),
    inReview: review.n,
    inReviewForYou: review.n - review.mine,
    canReview: can(user?.role, 'expert'),
  };
}
