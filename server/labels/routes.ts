// HTTP for the labelling workspace: the next item, drafts, submission; plain pages and htmx fragments.
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendDocument, sendHtml, wantsFragment } from '../http/render.ts';
import { requireUser } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import type { LabelTarget, ResponseWithSample } from '../responses/queries.ts';
import type { Criterion } from '../criteria/queries.ts';
import type { AnnotationRow, LabelValueRow } from './queries.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import { LabelConflict, LabelError, valueKey, type AnnotationInput, type HandedOut, type Progress } from './service.ts';
import { pageNumber, type FieldErrors } from '../http/forms.ts';
import { LabelPage, QueueDone, Workspace, type QueueDoneView, type WorkspaceItem } from '../../views/pages/label.tsx';
import { HistoryList, LabelStart, type HistoryItem } from '../../views/pages/label-history.tsx';
import type { HistoryPage, HistoryState } from './history.ts';
import { optionLabel } from '../criteria/values.ts';
import { waitingFor } from '../datasets/waiting.ts';
import type { Html } from '../../views/jsx-runtime.ts';
import { LIMITS } from '../limits.ts';

const RECENT = 5;
const HISTORY_PAGE = 50;
const NO_FILTER = { q: '', state: '', criterionId: null, value: '' } as const;

/** The dataset of a labelling request, if it exists, and whether the user may label in it. */
interface LabellingAccess { dataset: DatasetRow | undefined; allowed: boolean }
const NO_ACCESS: LabellingAccess = { dataset: undefined, allowed: false };

/** A response as the workspace shows it, with its dataset's progress (labels.shown). */
interface Shown { response: ResponseWithSample; progress: Progress }

const HistoryQuery = z.object({
  q: z.string().trim().max(LIMITS.search).catch(''),
  state: z.enum(['draft', 'submitted']).or(z.literal('')).catch(''),
  value: z.string().max(220).regex(/^\d{1,15}:.{1,200}$/).or(z.literal('')).catch(''),
});

/** The history list's filters: text, state, and one response-level criterion's value ("criterionId:value"). */
function readHistoryFilter(query: unknown) {
  const q = HistoryQuery.parse(query ?? {});
  const [cid, ...rest] = q.value ? q.value.split(':') : [];
  return {
    raw: q,
    filter: { q: q.q, state: q.state as HistoryState | '', criterionId: cid ? Number(cid) : null, value: rest.join(':') },
  };
}

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

export function labelRoutes(app: AppContext): Router {
  const r = Router();
  const { labels, criteria } = app;
  // Outside a transaction every statement takes and releases the database's locks itself (file and
  // shared-memory locks, a few system calls), which costs more than a small query: the reads a save
  // makes before its write transaction (the response with its dataset and the user's standing, and the
  // dataset's criteria when they changed since they were kept) are made in one read transaction, or in
  // the group commit's transaction when one is open (a savepoint would only add two statements).
  const oneRead = app.db.transaction((read: () => unknown) => read());
  const readTogether = <T>(read: () => T): T => (app.db.inTransaction ? read() : oneRead(read) as T);

  /** The workspace of one item; `mine` is this expert's annotation of it with its values. */
  function buildItem(dataset: DatasetRow, criteriaList: readonly Criterion[], { response, progress }: Shown,
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

  function render(req: Request, res: Response, dataset: DatasetRow, node: Html, status = 200) {
    if (wantsFragment(req)) return sendHtml(res, node, status);
    sendDocument(res, LabelPage({ ctx: pageContext(req), dataset, children: node }), status);
  }

  /** The dataset and whether this user may label in it: reads only, so that it can run in a read transaction. */
  function labellingAccess(req: Request, datasetId: number | undefined): LabellingAccess {
    return datasetId === undefined ? NO_ACCESS : labels.labellingAccess(datasetId, req.user);
  }

  /** The dataset when this user may label in it; otherwise answers the refusal (outside any transaction: the answer touches the session). */
  function admit(req: Request, res: Response, { dataset, allowed }: LabellingAccess): DatasetRow | null {
    if (!dataset) { sendError(req, res, 404, req.t('err.not_found')); return null; }
    if (!allowed) {
      app.log.warn('authz.refused', { path: req.path, user: req.user?.id ?? null, reason: 'not a labeller' });
      sendError(req, res, 403, req.t('err.not_labeller'));
      return null;
    }
    return dataset;
  }

  /** The dataset of a response, when this user may label in it; answers the refusal itself. */
  function labellingDataset(req: Request, res: Response, datasetId: number | undefined): DatasetRow | null {
    return admit(req, res, labellingAccess(req, datasetId));
  }

  /** Loads the response as the workspace shows it and checks that this user may label it; answers the refusal itself. */
  function load(req: Request, res: Response): { dataset: DatasetRow; shown: Shown } | null {
    const shown = labels.shown(idParam(req.params.rid) ?? 0, req.user!.id);
    const dataset = labellingDataset(req, res, shown?.response.dataset_id);
    return dataset ? { dataset, shown: shown! } : null;
  }

  /** As load, for saving: the response without its texts, read with its dataset and the user's standing. */
  function loadTarget(req: Request, res: Response): { dataset: DatasetRow; target: LabelTarget } | null {
    const found = labels.targetAccess(idParam(req.params.rid) ?? 0, req.user);
    const dataset = admit(req, res, found ?? NO_ACCESS);
    return dataset ? { dataset, target: found!.target } : null;
  }

  /**
   * What saving a label reads before its write (as loadTarget, with the dataset's criteria), in one read
   * transaction, with the group commit's mark: read in the group's transaction, the dataset's archived
   * flag need not be read again by the write (labels/service.ts ArchivedAsRead).
   */
  const readForSave = (req: Request) => readTogether(() => {
    const found = labels.targetAccess(idParam(req.params.rid) ?? 0, req.user);
    return { target: found?.target, access: found ?? NO_ACCESS, criteriaList: found?.allowed ? criteria.forDatasetRow(found.dataset) : [], mark: app.group.mark() };
  });

  /** Answers with the item handed out (see labels.handOut), or that the queue is done. */
  function showNext(req: Request, res: Response, dataset: DatasetRow, handed: HandedOut | null, criteriaList?: readonly Criterion[]) {
    const ctx = pageContext(req);
    if (handed === null) {
      if (!wantsFragment(req)) return res.redirect(303, `/datasets/${dataset.id}/label`);
      return sendHtml(res, QueueDone({ ctx, dataset, next: nextActions(req, dataset) }));
    }
    if (!wantsFragment(req)) return res.redirect(303, `/responses/${handed.responseId}/label`);
    const shown = labels.shown(handed.responseId, req.user!.id)!;
    res.set('HX-Push-Url', `/responses/${handed.responseId}/label`);
    sendHtml(res, Workspace({ ctx, item: buildItem(dataset, criteriaList ?? criteria.forDatasetRow(dataset), shown, handed) }));
  }

  /** What is left to do in the dataset once this expert's queue is empty. */
  function nextActions(req: Request, dataset: DatasetRow): QueueDoneView {
    return { progress: labels.progress(dataset.id, req.user!.id), waiting: waitingFor(app, dataset, req.user) };
  }

  // A GET shows and never writes (a link from another site must not reserve items in someone's name):
  // the start page says what waits; reserving the next item is the POST below.
  r.get('/datasets/:id/label', requireUser, (req, res) => {
    const dataset = labellingDataset(req, res, idParam(req.params.id) ?? undefined);
    if (!dataset) return;
    const ctx = pageContext(req);
    const candidate = labels.peekNext(dataset.id, req.user!.id, dataset.overlap);
    const recent = labels.history.page(req.user!.id, dataset.id, NO_FILTER, RECENT, 0);
    sendDocument(res, LabelPage({ ctx, dataset, children: LabelStart({ ctx, dataset, candidate, next: nextActions(req, dataset),
      recent: historyRows(dataset, recent) }) }));
  });

  /** Reserves the next item (after `after` when skipping) and shows it; the keyboard's S and the start button post here. */
  r.post('/datasets/:id/label/next', requireUser, (req, res) => {
    const dataset = labellingDataset(req, res, idParam(req.params.id) ?? undefined);
    if (!dataset) return;
    const after = idParam(typeof req.body?.after === 'string' ? req.body.after : undefined) ?? 0;
    showNext(req, res, dataset, labels.handOut(dataset.id, req.user!.id, dataset.overlap, after));
  });

  r.get('/responses/:rid/label', requireUser, (req, res) => {
    const loaded = load(req, res);
    if (!loaded) return;
    const { dataset, shown } = loaded;
    const item = buildItem(dataset, criteria.forDatasetRow(dataset), shown, labels.mine(shown.response.id, req.user!.id));
    render(req, res, dataset, Workspace({ ctx: pageContext(req), item }));
  });

  // B and N: the previous / next item in this expert's own history (not the browser's), computed when asked.
  for (const direction of ['prev', 'next'] as const) {
    r.get(`/responses/:rid/label/${direction}`, requireUser, (req, res) => {
      const loaded = load(req, res);
      if (!loaded) return;
      const { dataset, shown: here } = loaded;
      const me = req.user!.id;
      const target = direction === 'prev' ? labels.history.previous(me, dataset.id, here.response.id) : labels.history.next(me, dataset.id, here.response.id);
      if (target !== null && !wantsFragment(req)) return res.redirect(303, `/responses/${target}/label`);
      const shown = target === null ? here : labels.shown(target, me)!;
      if (target !== null) res.set('HX-Push-Url', `/responses/${target}/label`);
      const item = buildItem(dataset, criteria.forDatasetRow(dataset), shown, labels.mine(shown.response.id, me));
      render(req, res, dataset, Workspace({ ctx: pageContext(req), item, ...(target === null ? { edge: direction === 'prev' ? 'first' : 'last' } as const : {}) }));
    });
  }

  r.get('/datasets/:id/label/history', requireUser, (req, res) => {
    const dataset = labellingDataset(req, res, idParam(req.params.id) ?? undefined);
    if (!dataset) return;
    const filter = readHistoryFilter(req.query);
    const page = pageNumber.parse(req.query.page);
    const found = labels.history.page(req.user!.id, dataset.id, filter.filter, HISTORY_PAGE, (page - 1) * HISTORY_PAGE);
    const ctx = pageContext(req);
    sendDocument(res, LabelPage({ ctx, dataset, children: HistoryList({ ctx, dataset, rows: historyRows(dataset, found), total: found.total,
      page, pageSize: HISTORY_PAGE, filter: filter.raw, criteria: criteria.forDatasetRow(dataset).filter((c) => c.target === 'response' && c.kind !== 'numeric') }) }));
  });

  /** History rows with the expert's response-level values as the option labels they picked. */
  function historyRows(dataset: DatasetRow, found: HistoryPage): HistoryItem[] {
    const cs = criteria.forDatasetRow(dataset).filter((c) => c.target === 'response');
    return found.rows.map((row) => ({ ...row, values: cs.flatMap((c) => {
      const v = found.values.get(row.annotation_id)?.get(c.id);
      return v === undefined ? [] : [{ criterion: c.name, value: optionLabel(c, v) ?? v }];
    }) }));
  }

  r.post('/responses/:rid/label', requireUser, (req, res) => {
    const { target, access, criteriaList, mark } = readForSave(req);
    const dataset = admit(req, res, access);
    if (!dataset || !target) return;
    const { input, version } = readAnnotation(req.body);
    let handed: HandedOut | null = null;
    try {
      // The next item comes in the answer (htmx swaps it in; a plain form is redirected to it), so it is
      // handed out in the same transaction: one commit per save-and-next.
      handed = labels.submitAndHandOut(req.user!, target, criteriaList, input, version, dataset.overlap, { archived: dataset.archived === 1, mark });
    } catch (err) {
      const ctx = pageContext(req);
      if (err instanceof LabelConflict) {
        app.log.info('label.conflict', { response: target.id, user: req.user!.id });
        const item = buildItem(dataset, criteriaList, labels.shown(target.id, req.user!.id)!, labels.mine(target.id, req.user!.id));
        return render(req, res, dataset, Workspace({ ctx, item, conflict: true }), 409);
      }
      if (err instanceof LabelError) {
        const errors: FieldErrors = { [err.field]: req.t(err.key, err.params) };
        if (err.field === '_form') app.log.warn('label.refused', { response: target.id, user: req.user!.id, reason: err.key });
        const item = buildItem(dataset, criteriaList, labels.shown(target.id, req.user!.id)!, labels.mine(target.id, req.user!.id), { input });
        return render(req, res, dataset, Workspace({ ctx, item, errors }), 422);
      }
      throw err;
    }
    showNext(req, res, dataset, handed, criteriaList);
  });

  r.post('/responses/:rid/draft', requireUser, (req, res) => {
    const loaded = loadTarget(req, res);
    if (!loaded) return;
    const { dataset, target } = loaded;
    const { input } = readAnnotation(req.body);
    try {
      labels.saveDraft(req.user!, target, criteria.forDatasetRow(dataset), input);
      res.type('text').send(req.t('label.draft_saved'));
    } catch (err) {
      if (err instanceof LabelError || err instanceof LabelConflict) return res.status(422).type('text').send(req.t('label.draft_failed'));
      throw err;
    }
  });

  return r;
}
