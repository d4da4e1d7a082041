// "Judge right" may correct the gold value, the same rule on the answer and the context review item:
// only with that verdict, only by an adjudicator, only to a value the criterion allows, and only
// with a note saying why when the value really changes (the correction is an audited adjudication).
import type { Request } from 'express';
import type { AppContext } from '../app-context.ts';
import type { Criterion } from '../criteria/queries.ts';
import { canonicalValue } from '../criteria/values.ts';
import type { FieldErrors } from '../http/forms.ts';
import { reviewText } from './text.ts';

export type Correction =
  /** The gold value to adjudicate, or null: the verdict changes no gold value. */
  | { value: string | null }
  | { forbidden: true }
  | { errors: FieldErrors };

export function goldCorrection(app: AppContext, req: Request, criterion: Criterion, item: { responseId: number; contextIndex: number; datasetId: number },
  form: { verdict: string; gold: string; note: string }, correctable: boolean): Correction {
  if (form.verdict !== 'judge_right' || form.gold === '') return { value: null };
  const rt = reviewText(req.t);
  if (!app.labels.canAdjudicate(item.datasetId, req.user)) {
    app.log.warn('authz.refused', { path: req.path, user: req.user!.id, reason: 'not an adjudicator' });
    return { forbidden: true };
  }
  const value = correctable ? canonicalValue(criterion, form.gold) : null;
  if (value === null) return { errors: { gold: rt('review.err_gold') } };
  if (value === app.labels.gold(criterion, item.responseId, item.contextIndex)) return { value: null };
  if (!form.note) return { errors: { note: rt('review.err_note_for_correction') } };
  return { value };
}
