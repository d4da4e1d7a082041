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
import { highlightHtml, highlightTerms } from './highlight.ts';
import { LabelConflict, LabelError, valueKey, type AnnotationInput, type HandedOut } from './service.ts';
import type { FieldErrors } from '../http/forms.ts';
import { LabelPage, QueueDone, Workspace, type WorkspaceItem } from '../../views/pages/label.tsx';

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
  const { datasets, labels, criteria, responses } = app;

  /** The workspace of one item; `mine` is this expert's annotation of it with its values. */
  function buildItem(req: Request, dataset: DatasetRow, criteriaList: Criterion[], response: ResponseWithSample,
    mine: { annotation: AnnotationRow; labels: LabelValueRow[] } | null, override?: { input: AnnotationInput }): WorkspaceItem {
    const values: Record<string, string> = {};
    if (override) for (const [k, v] of override.input.values) values[k] = v;
    else for (const l of mine?.labels ?? []) values[valueKey(l.criterion_id, l.context_index)] = l.value;
    const terms = highlightTerms(response.question, response.ground_truth);
    return {
      dataset, response, criteria: criteriaList, annotation: mine?.annotation ?? null, values,
      contexts: (JSON.parse(response.retrieved_contexts) as string[]).map((c) => highlightHtml(c, terms)),
      rationale: override?.input.rationale ?? mine?.annotation.rationale ?? '',
      correctedAnswer: override?.input.corrected_answer ?? mine?.annotation.corrected_answer ?? '',
      progress: labels.progress(dataset.id, req.user!.id),
    };
  }

  function render(req: Request, res: Response, dataset: DatasetRow, node: preact.VNode, status = 200) {
    if (wantsFragment(req)) return sendHtml(res, node, status);
    sendDocument(res, LabelPage({ ctx: pageContext(req), dataset, children: node }), status);
  }

  /** The dataset of a response, when this user may label in it; answers the refusal itself. */
  function labellingDataset(req: Request, res: Response, datasetId: number | undefined): DatasetRow | null {
    const dataset = datasetId === undefined ? undefined : datasets.get(datasetId);
    if (!dataset) { sendError(req, res, 404, req.t('err.not_found')); return null; }
    if (!labels.canLabel(dataset.id, req.user)) {
      app.log.warn('authz.refused', { path: req.path, user: req.user?.id ?? null, reason: 'not a labeller' });
      sendError(req, res, 403, req.t('err.not_labeller'));
      return null;
    }
    return dataset;
  }

  /** Loads the response and checks that this user may label it; answers the refusal itself. */
  function load(req: Request, res: Response): { dataset: DatasetRow; response: ResponseWithSample } | null {
    const response = responses.byId(idParam(req.params.rid) ?? 0);
    const dataset = labellingDataset(req, res, response?.dataset_id);
    return dataset ? { dataset, response: response! } : null;
  }

  /** As load, for saving: the response without its texts. */
  function loadTarget(req: Request, res: Response): { dataset: DatasetRow; target: LabelTarget } | null {
    const target = responses.target(idParam(req.params.rid) ?? 0);
    const dataset = labellingDataset(req, res, target?.dataset_id);
    return dataset ? { dataset, target: target! } : null;
  }

  /** Answers with the item handed out (see labels.handOut), or that the queue is done. */
  function showNext(req: Request, res: Response, dataset: DatasetRow, handed: HandedOut | null, criteriaList?: Criterion[]) {
    const ctx = pageContext(req);
    if (handed === null) return render(req, res, dataset, QueueDone({ ctx, dataset, progress: labels.progress(dataset.id, req.user!.id) }));
    const response = responses.byId(handed.responseId)!;
    res.set('HX-Push-Url', `/responses/${handed.responseId}/label`);
    render(req, res, dataset, Workspace({ ctx, item: buildItem(req, dataset, criteriaList ?? criteria.forDataset(dataset.id), response, handed) }));
  }

  r.get('/datasets/:id/label', requireUser, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    if (!labels.canLabel(dataset.id, req.user)) return sendError(req, res, 403, req.t('err.not_labeller'));
    showNext(req, res, dataset, labels.handOut(dataset.id, req.user!.id, dataset.overlap, idParam(req.query.after) ?? 0));
  });

  r.get('/responses/:rid/label', requireUser, (req, res) => {
    const loaded = load(req, res);
    if (!loaded) return;
    const { dataset, response } = loaded;
    const item = buildItem(req, dataset, criteria.forDataset(dataset.id), response, labels.mine(response.id, req.user!.id));
    render(req, res, dataset, Workspace({ ctx: pageContext(req), item }));
  });

  r.post('/responses/:rid/label', requireUser, (req, res) => {
    const loaded = loadTarget(req, res);
    if (!loaded) return;
    const { dataset, target } = loaded;
    const { input, version } = readAnnotation(req.body);
    const criteriaList = criteria.forDataset(dataset.id);
    let handed: HandedOut | null = null;
    try {
      // htmx gets the next item in the answer, so it is handed out in the same transaction.
      if (wantsFragment(req)) handed = labels.submitAndHandOut(req.user!, target, criteriaList, input, version, dataset.overlap);
      else labels.submit(req.user!, target, criteriaList, input, version);
    } catch (err) {
      const ctx = pageContext(req);
      if (err instanceof LabelConflict) {
        app.log.info('label.conflict', { response: target.id, user: req.user!.id });
        const item = buildItem(req, dataset, criteriaList, responses.byId(target.id)!, labels.mine(target.id, req.user!.id));
        return render(req, res, dataset, Workspace({ ctx, item, conflict: true }), 409);
      }
      if (err instanceof LabelError) {
        const errors: FieldErrors = { [err.field]: req.t(err.key, err.params) };
        if (err.field === '_form') app.log.warn('label.refused', { response: target.id, user: req.user!.id, reason: err.key });
        const item = buildItem(req, dataset, criteriaList, responses.byId(target.id)!, labels.mine(target.id, req.user!.id), { input });
        return render(req, res, dataset, Workspace({ ctx, item, errors }), 422);
      }
      throw err;
    }
    if (!wantsFragment(req)) return res.redirect(303, `/datasets/${dataset.id}/label`);
    showNext(req, res, dataset, handed, criteriaList);
  });

  r.post('/responses/:rid/draft', requireUser, (req, res) => {
    const loaded = loadTarget(req, res);
    if (!loaded) return;
    const { dataset, target } = loaded;
    const { input } = readAnnotation(req.body);
    try {
      labels.saveDraft(req.user!, target, criteria.forDataset(dataset.id), input);
      res.type('text').send(req.t('label.draft_saved'));
    } catch (err) {
      if (err instanceof LabelError || err instanceof LabelConflict) return res.status(422).type('text').send(req.t('label.draft_failed'));
      throw err;
    }
  });

  return r;
}
