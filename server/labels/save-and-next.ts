// Save-and-next, the request experts make most: save this item's label and hand out the next one,
// in one transaction, answered with the next item's workspace. The same function runs in the
// request's thread (a plain form; or with no labelling thread) and in the labelling thread
// (label-thread.ts), which makes it for htmx requests on its own connection.
import type { AppContext } from '../app-context.ts';
import type { CurrentUser } from '../http/context.ts';
import type { PageContext } from '../../views/layout.tsx';
import { renderHtml, type Html } from '../../views/jsx-runtime.ts';
import type { Criterion } from '../criteria/queries.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import type { ResponseWithSample } from '../responses/queries.ts';
import type { AnnotationRow, LabelValueRow } from './queries.ts';
import type { MessageKey } from '../i18n/index.ts';
import type { FieldErrors } from '../http/forms.ts';
import { z } from 'zod';
import { LabelConflict, LabelError, valueKey, type AnnotationInput, type HandedOut, type Progress } from './service.ts';
import { QueueDone, Workspace, type QueueDoneView, type WorkspaceItem } from '../../views/pages/label.tsx';
import { waitingFor } from '../datasets/waiting.ts';

/** A response as the workspace shows it, with its dataset's progress (labels.shown). */
export interface Shown { response: ResponseWithSample; progress: Progress }

// Lengths are checked by the label service against server/limits.ts (an over-long rationale is refused, not dropped).
const Meta = z.object({
  version: z.coerce.number().int().min(0).catch(0),
  rationale: z.string().catch(''),
  corrected_answer: z.string().catch(''),
});

/**
 * Reads `c<criterion>` and `c<criterion>_<context>` fields of the workspace form, and the version
 * it was read at (a missing one is 0, "none submitted yet", which never overwrites a submission).
 */
export function readAnnotation(body: Record<string, unknown>): { input: AnnotationInput; version: number } {
  const values = new Map<string, string>();
  for (const [key, raw] of Object.entries(body ?? {})) {
    const m = /^c(\d+)(?:_(\d+))?$/.exec(key);
    if (m && typeof raw === 'string') values.set(valueKey(Number(m[1]), m[2] === undefined ? -1 : Number(m[2])), raw);
  }
  const meta = Meta.parse(body ?? {});
  return { input: { values, rationale: meta.rationale.trim(), corrected_answer: meta.corrected_answer.trim() }, version: meta.version };
}

/** The workspace of one item; `mine` is this expert's annotation of it with its values. */
export function buildItem(dataset: DatasetRow, criteriaList: readonly Criterion[], { response, progress }: Shown,
  mine: { annotation: AnnotationRow; labels: LabelValueRow[] } | null, override?: { input: AnnotationInput }): WorkspaceItem {
  const values: Record<string, string> = {};
  if (override) for (const [k, v] of override.input.values) values[k] = v;
  else for (const l of mine?.labels ?? []) values[valueKey(l.criterion_id, l.context_index)] = l.value;
  return {
    dataset, response, criteria: criteriaList, annotation: mine?.annotation ?? null, values,
    contexts: JSON.parse(response.retrieved_contexts) as string[],
    rationale: override?.input.rationale ?? mine?.annotation.rationale ?? '',
    correctedAnswer: override?.input.corrected_answer ?? mine?.annotation.corrected_answer ?? '',
    progress,
  };
}

/** What is left to do in the dataset once this expert's queue is empty. */
export function nextActions(app: AppContext, dataset: DatasetRow, user: CurrentUser): QueueDoneView {
  return { progress: app.labels.progress(dataset.id, user.id), waiting: waitingFor(app, dataset, user) };
}

/** The workspace of the item handed out (labels.handOut), or that the queue is done. */
export function handedWorkspace(app: AppContext, ctx: PageContext, dataset: DatasetRow, handed: HandedOut | null,
  criteriaList: readonly Criterion[] = app.criteria.forDatasetRow(dataset)): Html {
  if (handed === null) return QueueDone({ ctx, dataset, next: nextActions(app, dataset, ctx.user!) });
  return Workspace({ ctx, item: buildItem(dataset, criteriaList, app.labels.shown(handed.responseId, ctx.user!.id)!, handed) });
}

/** The dataset and whether this user may label in it: refused with the status and message it answers, logged when forbidden. */
export type Admitted = { dataset: DatasetRow } | { refused: 403 | 404; message: MessageKey };

export function admitLabeller(app: AppContext, access: { dataset: DatasetRow | undefined; allowed: boolean }, path: string, user: CurrentUser | null): Admitted {
  if (!access.dataset) return { refused: 404, message: 'err.not_found' };
  if (!access.allowed) {
    app.log.warn('authz.refused', { path, user: user?.id ?? null, reason: 'not a labeller' });
    return { refused: 403, message: 'err.not_labeller' };
  }
  return { dataset: access.dataset };
}

/** Save-and-next's answer to an htmx request: refused, or the HTML with its status (and the next item's id, for the address bar). */
export type FragmentAnswer = { refused: 403 | 404; message: MessageKey } | { status: 200 | 409 | 422; html: string; next?: number };

/** The answer to an htmx request, made where the save was made (the labelling thread sends it as it is). */
export function fragmentAnswer(outcome: SaveOutcome): FragmentAnswer {
  if ('refused' in outcome) return outcome;
  return { status: outcome.status, html: renderHtml(outcome.workspace), ...(outcome.status === 200 && outcome.next !== null ? { next: outcome.next } : {}) };
}

/** How a save-and-next ended: refused; the item again (409 a stale form, 422 a refused value); or saved, with the next item or none. */
export type SaveOutcome =
  | { refused: 403 | 404; message: MessageKey }
  | { dataset: DatasetRow; status: 409 | 422; workspace: Html }
  | { dataset: DatasetRow; status: 200; next: number | null; workspace: Html };

// One read transaction per connection, made once (see saveAndNext).
const readTransactions = new WeakMap<AppContext['db'], (read: () => unknown) => unknown>();
function readTogether<T>(app: AppContext, read: () => T): T {
  if (app.db.inTransaction) return read();
  let tx = readTransactions.get(app.db);
  if (!tx) readTransactions.set(app.db, tx = app.db.transaction((r: () => unknown) => r()));
  return tx(read) as T;
}

export function saveAndNext(app: AppContext, ctx: PageContext, responseId: number, body: Record<string, unknown>): SaveOutcome {
  const { labels, criteria } = app;
  const user = ctx.user!;
  // What saving reads before its write, in the group commit's transaction when one is open (its mark:
  // the dataset's archived flag need not be read again by the write, labels/service.ts ArchivedAsRead),
  // else in one read transaction (each statement outside one takes and releases the locks itself).
  const { found, criteriaList, mark } = readTogether(app, () => {
    const found = labels.targetAccess(responseId, user);
    return { found, criteriaList: found?.allowed ? criteria.forDatasetRow(found.dataset) : [], mark: app.group.mark() };
  });
  const admitted = admitLabeller(app, found ?? { dataset: undefined, allowed: false }, ctx.path, user);
  if ('refused' in admitted) return admitted;
  const { dataset } = admitted;
  const target = found!.target;
  const { input, version } = readAnnotation(body);
  let handed: HandedOut | null;
  try {
    // The next item comes in the answer, so it is handed out in the same transaction: one commit per save-and-next.
    handed = labels.submitAndHandOut(user, target, criteriaList, input, version, dataset.overlap, { archived: dataset.archived === 1, mark });
  } catch (err) {
    if (err instanceof LabelConflict) {
      app.log.info('label.conflict', { response: target.id, user: user.id });
      const item = buildItem(dataset, criteriaList, labels.shown(target.id, user.id)!, labels.mine(target.id, user.id));
      return { dataset, status: 409, workspace: Workspace({ ctx, item, conflict: true }) };
    }
    if (err instanceof LabelError) {
      const errors: FieldErrors = { [err.field]: ctx.t(err.key, err.params) };
      if (err.field === '_form') app.log.warn('label.refused', { response: target.id, user: user.id, reason: err.key });
      const item = buildItem(dataset, criteriaList, labels.shown(target.id, user.id)!, labels.mine(target.id, user.id), { input });
      return { dataset, status: 422, workspace: Workspace({ ctx, item, errors }) };
    }
    throw err;
  }
  return { dataset, status: 200, next: handed?.responseId ?? null, workspace: handedWorkspace(app, ctx, dataset, handed, criteriaList) };
}
