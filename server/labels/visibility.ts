// Who may see other experts' labels (and the gold value they make) on an item: one rule for the
// adjudication page, the audit queue and its items. Experts who may still label an item see the
// others' labels only after submitting their own, so none is swayed by another; admins,
// adjudicators and people who do not label this dataset (reviewers, eval engineers, viewers) see them.
// (The hardening work gathers such rules into one permission module; this is the labels' one.)
import type { CurrentUser } from '../http/context.ts';
import type { LabelService } from './service.ts';

export interface LabelVisibility {
  /** Whether this user sees others' labels on every item, whatever they labelled. */
  always: boolean;
  /** For a user who does not always see them: whether they do on an item, given whether they submitted their own there. */
  on(submittedOwn: boolean): boolean;
}

export function labelVisibility(labels: LabelService, datasetId: number, user: CurrentUser | null): LabelVisibility {
  const always = user !== null && (user.role === 'admin' || labels.canAdjudicate(datasetId, user) || !labels.canLabel(datasetId, user));
  return { always, on: (submittedOwn) => always || submittedOwn };
}
