// HTTP for the labelling workspace: the next item, drafts, submission; plain pages and htmx fragments.
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendDocument, sendHtml, wantsFragment } from '../http/render.ts';
import { requireUser } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import type { ResponseWithSample } from '../responses/queries.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import { highlightHtml, highlightTerms } from './highlight.ts';
import { LabelConflict, LabelError, valueKey, type AnnotationInput } from './service.ts';
import type { FieldErrors } from '../http/forms.ts';
import { LabelPage, QueueDone, Workspace, type WorkspaceItem } from '../../views/pages/label.tsx';

const Meta = z.object({
  version: z.coerce.number().int().positive().or(z.literal('')).catch(''),
  rationale: z.string().max(8000).catch(''),
  corrected_answer: z.string().max(20000).catch(''),
});

/** Reads `c<criterion>` and `c<criterion>_<context>` fields of the workspace form. */
export function readAnnotation(body: Record<string, unknown>): { input: AnnotationInput; version: number | null } {
  const values = new Map<string, string>();
  for (const [key, raw] of Object.entries(body ?? {})) {
    const m = /^c(\d+)(?:_(\d+))?$/.exec(key);
    if (m && typeof raw === 'string') values.set(valueKey(Number(m[1]), m[2] === undefined ? -1 : Number(m[2])), raw);
  }
  const meta = Meta.parse(body ?? {});
  return { input: { values, rationale: meta.rationale.trim(), corrected_answer: meta.corrected_answer.trim() }, version: meta.version === '' ? null : meta.version };
}

export function labelRoutes(app: AppContext): Router {
  const r = Router();
  const { datasets, labels, criteria, responses } = app;

  function buildItem(req: Request, dataset: DatasetRow, response: ResponseWithSample, override?: { input: AnnotationInput }): WorkspaceItem {
    const mine = labels.mine(response.id, req.user!.id);
    const values: Record<string, string> = {};
    if (override) for (const [k, v] of override.input.values) values[k] = v;
    else for (const l of mine?.labels ?? []) values[valueKey(l.criterion_id, l.context_index)] = l.value;
    const terms = highlightTerms(response.question, response.ground_truth);
    return {
      dataset, response, criteria: criteria.forDataset(dataset.id), annotation: mine?.annotation ?? null, values,
      contexts: (JSON.parse(response.retrieved_contexts) as string[]).map((c) => highlightHtml(c, terms)),
      rationale: override?.input.rationale ?? mine?.annotation.rationale ?? '',
      correctedAnswer: override?.input.corrected_answer ?? mine?.annotation.corrected_answer ?? '',
      progress: labels.progress(dataset.id, req.user!.id),
    };
  }

  function render(req: Request, res: Response, dataset: DatasetRow, node: preact.VNode, status = 200) {
    const ctx = pageContext(req);
    if (wantsFragment(req)) return sendHtml(res, node, status);
    sendDocument(res, LabelPage({ ctx, dataset, children: node }), status);
  }

  /** Loads the response and checks that this user may label it; answers the refusal itself. */
  function load(req: Request, res: Response): { dataset: DatasetRow; response: ResponseWithSample } | null {
    const response = responses.byId(idParam(req.params.rid) ?? 0);
    const dataset = response && datasets.get(response.dataset_id);
    if (!response || !dataset) { sendError(req, res, 404, req.t('err.not_found')); return null; }
    if (!labels.canLabel(dataset.id, req.user)) {
      app.log.warn('authz.refused', { path: req.path, user: req.user?.id ?? null, reason: 'not a labeller' });
      sendError(req, res, 403, req.t('err.not_labeller'));
      return null;
    }
    return { dataset, response };
  }

  function showNext(req: Request, res: Response, dataset: DatasetRow, after = 0) {
    let next = labels.next(dataset.id, req.user!.id, dataset.overlap, after);
    if (next === null && after > 0) next = labels.next(dataset.id, req.user!.id, dataset.overlap, 0); // wrap around after skipping
    const ctx = pageContext(req);
    if (next === null) return render(req, res, dataset, QueueDone({ ctx, dataset, progress: labels.progress(dataset.id, req.user!.id) }));
    const response = responses.byId(next)!;
    labels.claim(dataset.id, next, req.user!.id);
    res.set('HX-Push-Url', `/responses/${next}/label`);
    render(req, res, dataset, Workspace({ ctx, item: buildItem(req, dataset, response) }));
  }

  r.get('/datasets/:id/label', requireUser, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    if (!labels.canLabel(dataset.id, req.user)) return sendError(req, res, 403, req.t('err.not_labeller'));
    showNext(req, res, dataset, idParam(req.query.after) ?? 0);
  });

  r.get('/responses/:rid/label', requireUser, (req, res) => {
    const loaded = load(req, res);
    if (!loaded) return;
    render(req, res, loaded.dataset, Workspace({ ctx: pageContext(req), item: buildItem(req, loaded.dataset, loaded.response) }));
  });

  r.post('/responses/:rid/label', requireUser, (req, res) => {
    const loaded = load(req, res);
    if (!loaded) return;
    const { dataset, response } = loaded;
    const { input, version } = readAnnotation(req.body);
    const target = { id: response.id, dataset_id: dataset.id, nContexts: (JSON.parse(response.retrieved_contexts) as unknown[]).length };
    try {
      labels.submit(req.user!, target, criteria.forDataset(dataset.id), input, version);
    } catch (err) {
      const ctx = pageContext(req);
      if (err instanceof LabelConflict) {
        app.log.info('label.conflict', { response: response.id, user: req.user!.id });
        return render(req, res, dataset, Workspace({ ctx, item: buildItem(req, dataset, response), conflict: true }), 409);
      }
      if (err instanceof LabelError) {
        const errors: FieldErrors = { [err.field]: req.t(err.key, err.params) };
        if (err.field === '_form') app.log.warn('label.refused', { response: response.id, user: req.user!.id, reason: err.key });
        return render(req, res, dataset, Workspace({ ctx, item: buildItem(req, dataset, response, { input }), errors }), 422);
      }
      throw err;
    }
    if (!wantsFragment(req)) return res.redirect(303, `/datasets/${dataset.id}/label`);
    showNext(req, res, dataset);
  });

  r.post('/responses/:rid/draft', requireUser, (req, res) => {
    const loaded = load(req, res);
    if (!loaded) return;
    const { dataset, response } = loaded;
    const { input } = readAnnotation(req.body);
    try {
      labels.saveDraft(req.user!, { id: response.id, dataset_id: dataset.id, nContexts: (JSON.parse(response.retrieved_contexts) as unknown[]).length },
        criteria.forDataset(dataset.id), input);
      res.type('text').send(req.t('label.draft_saved'));
    } catch (err) {
      if (err instanceof LabelError || err instanceof LabelConflict) return res.status(422).type('text').send(req.t('label.draft_failed'));
      throw err;
    }
  });

  return r;
}
