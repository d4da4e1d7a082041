// HTTP for a response's labels and gold values, the disagreement list, and adjudication.
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendDocument, sendHtml, wantsFragment } from '../http/render.ts';
import { requireUser } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import { pageNumber, type FieldErrors } from '../http/forms.ts';
import { goldValue } from './gold.ts';
import { LIMITS } from '../limits.ts';
import { inDataset } from '../datasets/scoped.ts';
import { LabelConflict, LabelError } from './service.ts';
import { DisagreementsPage, ResponsePage, SlotRow, type Slot } from '../../views/pages/adjudication.tsx';
import type { ResponseWithSample } from '../responses/queries.ts';
import type { DatasetRow } from '../datasets/queries.ts';

const AdjudicateForm = z.object({
  criterion: z.coerce.number().int().positive(),
  context_index: z.coerce.number().int().min(-1),
  value: z.string().max(LIMITS.labelValue),
  reason: z.string().trim().max(LIMITS.reason),
  // The adjudication version the form showed; 0 (or missing) when it showed none yet.
  version: z.coerce.number().int().min(0).catch(0),
});
const PAGE = 50;

export function adjudicationRoutes(app: AppContext): Router {
  const r = Router();
  const { datasets, labels, criteria, responses } = app;

  /** Everything the response page shows: the labels per slot with their gold values, and who may do what. */
  function responseView(req: Request, response: ResponseWithSample, dataset: DatasetRow) {
    const { annotations, labels: values } = labels.submittedFor(response.id);
    const adjudications = labels.adjudications(response.id);
    const canAdjudicate = labels.canAdjudicate(dataset.id, req.user);
    // Whoever may still label this item sees the others' labels only after submitting their own (access/permissions.ts).
    const visible = app.access.mayReadItemLabels(req.user, dataset.id, response.id);
    const who = new Map(annotations.map((a) => [a.id, a.annotator_email ?? '']));
    const nContexts = (JSON.parse(response.retrieved_contexts) as unknown[]).length;
    const slots: Slot[] = criteria.forDataset(dataset.id).flatMap((c) =>
      (c.target === 'context' ? [...Array(nContexts).keys()] : [-1]).map((i) => {
        const here = values.filter((l) => l.criterion_id === c.id && l.context_index === i);
        const adjudication = adjudications.find((a) => a.criterion_id === c.id && a.context_index === i);
        return { criterion: c, contextIndex: i, values: here.map((l) => ({ annotator: who.get(l.annotation_id) ?? '', value: l.value })),
          gold: goldValue(c.kind, here.map((l) => l.value), adjudication?.value ?? null), adjudication };
      }));
    return { slots, annotations, visible, canAdjudicate };
  }

  /** Response ids with an open expert disagreement, in id order (kept until the labels change). */
  function openDisagreements(datasetId: number): readonly number[] {
    return labels.openDisagreements(datasetId).ids();
  }

  /** The next response after this one with an open disagreement, wrapping around; null when there is none other. */
  function nextDisagreement(datasetId: number, responseId: number): number | null {
    const ids = openDisagreements(datasetId);
    return ids.find((id) => id > responseId) ?? (ids[0] !== undefined && ids[0] !== responseId ? ids[0] : null);
  }

  function renderResponse(req: Request, res: Response, responseId: number, errors?: FieldErrors, status = 200) {
    const response = responses.byId(responseId);
    const dataset = response && datasets.get(response.dataset_id);
    if (!response || !dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const view = responseView(req, response, dataset);
    sendDocument(res, ResponsePage({ ctx: pageContext(req), dataset, response, ...view,
      next: view.canAdjudicate ? nextDisagreement(dataset.id, response.id) : null,
      canLabel: labels.canLabel(dataset.id, req.user), ...(errors ? { errors } : {}) }), status);
  }

  /** htmx: only the adjudicated slot's row comes back, so setting one gold value reloads nothing else. */
  function renderSlot(req: Request, res: Response, response: ResponseWithSample, criterionId: number, contextIndex: number, note: { saved?: boolean; error?: string }, status = 200) {
    const dataset = datasets.get(response.dataset_id)!;
    const view = responseView(req, response, dataset);
    const slot = view.slots.find((x) => x.criterion.id === criterionId && x.contextIndex === contextIndex);
    if (!slot) return sendError(req, res, 404, req.t('err.not_found'));
    sendHtml(res, SlotRow({ ctx: pageContext(req), response, language: dataset.language, slot, canAdjudicate: view.canAdjudicate, ...note }), status);
  }

  r.get('/responses/:rid', requireUser, (req, res) => renderResponse(req, res, idParam(req.params.rid) ?? 0));

  r.post('/responses/:rid/adjudicate', requireUser, (req, res) => {
    const response = responses.byId(idParam(req.params.rid) ?? 0);
    if (!response) return sendError(req, res, 404, req.t('err.not_found'));
    if (!labels.canAdjudicate(response.dataset_id, req.user)) {
      app.log.warn('authz.refused', { path: req.path, user: req.user!.id, reason: 'not an adjudicator' });
      return sendError(req, res, 403, req.t('err.not_adjudicator'));
    }
    const form = AdjudicateForm.safeParse(req.body);
    const criterion = form.success ? inDataset(app, response.dataset_id).criterion(form.data.criterion) : undefined;
    if (!form.success || !criterion) return renderResponse(req, res, response.id, { _form: req.t('err.bad_request') }, 422);
    const nContexts = (JSON.parse(response.retrieved_contexts) as unknown[]).length;
    const validIndex = criterion.target === 'context' ? form.data.context_index >= 0 && form.data.context_index < nContexts : form.data.context_index === -1;
    if (!validIndex) return renderResponse(req, res, response.id, { _form: req.t('err.label_context_range') }, 422);
    const slot = (note: { saved?: boolean; error?: string }, status = 200) => renderSlot(req, res, response, criterion.id, form.data.context_index, note, status);
    try {
      labels.adjudicate(req.user!.id, criterion, response.id, form.data.context_index, form.data.value, form.data.reason, form.data.version);
      if (wantsFragment(req)) return slot({ saved: true });
      req.session.flash = req.t('flash.adjudicated');
      res.redirect(303, `/responses/${response.id}#c-${criterion.id}-${form.data.context_index}`);
    } catch (err) {
      if (err instanceof LabelConflict) {
        if (wantsFragment(req)) return slot({ error: req.t('err.adjudication_conflict') }, 409);
        return renderResponse(req, res, response.id, { _form: req.t('err.adjudication_conflict') }, 409);
      }
      if (err instanceof LabelError) {
        if (wantsFragment(req)) return slot({ error: req.t(err.key, err.params) }, 422);
        return renderResponse(req, res, response.id, { _form: req.t(err.key, err.params) }, 422);
      }
      throw err;
    }
  });

  r.get('/datasets/:id/disagreements', requireUser, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    if (!labels.canAdjudicate(dataset.id, req.user)) return sendError(req, res, 403, req.t('err.not_adjudicator'));
    const page = pageNumber.parse(req.query.page);
    // Finding disagreements reads every item's labels (~0.2 s at 100,000): the open slots are kept (and
    // updated by every label save), so a page groups the labels of its own responses only.
    const rows = labels.disagreementsPage(dataset.id, PAGE + 1, (page - 1) * PAGE);
    const byId = new Map(criteria.forDataset(dataset.id).map((c) => [c.id, c]));
    sendDocument(res, DisagreementsPage({ ctx: pageContext(req), dataset, rows: rows.slice(0, PAGE).filter((x) => byId.has(x.criterion_id)), criteria: byId, page, more: rows.length > PAGE }));
  });

  return r;
}
