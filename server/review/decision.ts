// Recording a reviewer's decision, the same on an answer's review item and on a context's: the verdict
// form read and checked, a "judge right" that corrects the gold value (correction.ts), the verdict and
// the correction written in one transaction, a decision someone else recorded meanwhile answered as a
// conflict (409) with this reviewer's choice kept in the form, then the item again or the next one.
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import type { Criterion } from '../criteria/queries.ts';
import { parseForm, type FieldErrors } from '../http/forms.ts';
import { sendError } from '../http/page.ts';
import { redirectAfterPost } from '../http/render.ts';
import { LabelConflict } from '../labels/service.ts';
import { LIMITS } from '../limits.ts';
import { goldCorrection } from './correction.ts';
import { VERDICTS } from './queue.ts';
import { reviewText } from './text.ts';

/** The verdict form; `gold` is the rule for a corrected gold value, which differs between answers and contexts. */
export function verdictForm(gold: z.ZodType<string, string | undefined>) {
  return z.object({
    verdict: z.enum(VERDICTS, { error: 'review.err_verdict' }),
    note: z.string({ error: 'err.invalid' }).trim().max(LIMITS.note, { error: 'review.err_note_long' }).default(''),
    gold,
    next: z.string().optional(),
    // The versions the form showed of the verdict and of the gold value's adjudication (0: none yet).
    verdict_version: z.coerce.number().int().min(0).catch(0),
    gold_version: z.coerce.number().int().min(0).catch(0),
  });
}

export type VerdictFormSchema = ReturnType<typeof verdictForm>;

/** What is decided about, and what differs between the two kinds of review item. */
export interface DecisionTarget {
  criterion: Criterion;
  datasetId: number;
  archived: boolean;
  responseId: number;
  /** -1: the answer. */
  contextIndex: number;
  /** Whether "judge right" may correct the gold value here (never for numeric criteria). */
  correctable: boolean;
  /** Writes the verdict, refusing it (by throwing) when the version the form showed is no longer the current one. */
  setVerdict(userId: number, verdict: (typeof VERDICTS)[number], note: string, version: number): void;
  /** Whether `err` is that refusal. */
  isConflict(err: unknown): boolean;
  /** What a reviewer whose decision came second is told. */
  conflictMessage: string;
  /** The item's page again, with what was typed and why it was not saved. */
  render(extra: { values: Record<string, string>; errors: FieldErrors }, status: number): void;
  /** Where a saved decision goes: the item again, or with "save and next" the next one. */
  after(saveAndNext: boolean): string;
  /** Log events (conflict, saved) and the fields that name the item in them. */
  log: { conflict: string; saved: string; item: Record<string, number> };
}

export function recordDecision(app: AppContext, req: Request, res: Response, schema: VerdictFormSchema, target: DecisionTarget): void {
  if (target.archived) return sendError(req, res, 409, req.t('err.dataset_archived'));
  const rt = reviewText(req.t);
  const body = (req.body ?? {}) as Record<string, unknown>;
  const typed = (name: string) => (typeof body[name] === 'string' ? body[name] : '');
  const values = { verdict: typed('verdict'), note: typed('note'), gold: typed('gold') };
  const form = parseForm(schema, body, req.t);
  const invalid = (errors: FieldErrors) => target.render({ values, errors: { _form: rt('review.err_form'), ...errors } }, 422);
  if (!form.ok) return invalid(form.errors);
  const { verdict, note } = form.data;
  const { criterion, responseId, contextIndex, datasetId } = target;

  const decided = goldCorrection(app, req, criterion, { responseId, contextIndex, datasetId }, form.data, target.correctable);
  if ('forbidden' in decided) return sendError(req, res, 403, req.t('err.not_adjudicator'));
  if ('errors' in decided) return invalid(decided.errors);
  const correction = decided.value;

  const user = req.user!.id;
  try {
    app.db.transaction(() => {
      target.setVerdict(user, verdict, note, form.data.verdict_version);
      if (correction !== null) app.labels.adjudicate(user, criterion, responseId, contextIndex, correction, note, form.data.gold_version);
    })();
  } catch (err) {
    if (!(target.isConflict(err) || err instanceof LabelConflict)) throw err;
    // Someone else decided meanwhile: the page shows what they recorded and keeps this reviewer's choice in the form.
    app.log.info(target.log.conflict, { ...target.log.item, user });
    return target.render({ values, errors: { _form: target.conflictMessage } }, 409);
  }
  app.log.info(target.log.saved, { ...target.log.item, criterion: criterion.id, verdict, corrected: correction !== null, user });
  req.session.flash = rt(correction !== null ? 'review.flash_corrected' : 'review.flash_saved');
  redirectAfterPost(req, res, target.after(form.data.next === '1'));
}
