// HTTP for datasets: list, create, the dataset workspace with its sample list, settings, example data.
import { Router, type Request } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { hidden, nameText, pageNumber, parseForm, sentValues, text } from '../http/forms.ts';
import { pageContext, sendError } from '../http/page.ts';
import { redirectAfterPost, sendDocument, sendPageOrFragment } from '../http/render.ts';
import { requireRole, requireUser } from '../http/security.ts';
import { DatasetConflict, DatasetError } from './service.ts';
import { LIMITS } from '../limits.ts';
import type { DatasetRow } from './queries.ts';
import { waitingFor } from './waiting.ts';
import { loadExampleData } from './example.ts';
import { STATUSES } from '../samples/queries.ts';
import { DatasetSettingsPage, DatasetsPage } from '../../views/pages/datasets.tsx';
import { DatasetPage, SampleTable, type ListState } from '../../views/pages/dataset.tsx';
import { estimateOverview } from '../estimate/routes.ts';
import { EstimateOverview } from '../../views/pages/estimate-overview.tsx';

export const DatasetForm = z.object({
  name: nameText(LIMITS.datasetName, 1),
  description: text(LIMITS.description),
  language: z.enum(['zh', 'en'], { error: 'err.invalid' }),
  domain: nameText(LIMITS.domain),
});
const SettingsForm = DatasetForm.extend({ archived: z.literal('1').optional(), version: hidden(z.coerce.number({ error: 'err.bad_request' }).int().min(1)) });

const ListQuery = z.object({
  q: z.string().trim().max(LIMITS.search).catch(''),
  status: z.enum(STATUSES).or(z.literal('')).catch(''),
  tag: z.string().trim().max(100).catch(''),
  author: z.coerce.number().int().positive().or(z.literal('')).catch(''),
  page: pageNumber,
});

export const PAGE_SIZE = 50;

export function idParam(value: unknown): number | null {
  const n = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export function listState(query: unknown): ListState {
  const q = ListQuery.parse(query ?? {});
  return { ...q, author: q.author === '' ? '' : q.author, pageSize: PAGE_SIZE };
}

export function sampleList(app: AppContext, datasetId: number, state: ListState) {
  const { rows, total } = app.samples.queries.list(
    { datasetId, q: state.q || undefined, status: state.status || undefined, tag: state.tag || undefined, authorId: state.author || undefined },
    { limit: state.pageSize, offset: (state.page - 1) * state.pageSize });
  return { rows, total, tags: app.samples.queries.tags(datasetId), authors: app.samples.queries.authors(datasetId) };
}

export function labellingSummary(app: AppContext, dataset: DatasetRow, user: Request['user']) {
  const waiting = waitingFor(app, dataset, user);
  return {
    responses: dataset.n_responses,
    criteria: app.criteria.forDataset(dataset.id).length,
    canLabel: waiting.canLabel,
    canAdjudicate: waiting.canAdjudicate,
    progress: app.labels.progress(dataset.id, user?.id ?? 0),
    waiting,
  };
}

/** The true score's line on the overview, once the dataset has an estimation sample (computing it reads every score of a run). */
function trueScoreLine(app: AppContext, ctx: ReturnType<typeof pageContext>, dataset: DatasetRow) {
  if (app.estimates.samples(dataset.id).length === 0) return null;
  const m = estimateOverview(app, dataset);
  return m ? EstimateOverview({ ctx, m }) : null;
}

export function datasetRoutes(app: AppContext): Router {
  const r = Router();
  const { datasets, log } = app;
  const expert = requireRole('expert', log);

  r.get('/datasets', requireUser, (req, res) => {
    const showArchived = req.query.archived === '1';
    sendDocument(res, DatasetsPage({ ctx: pageContext(req), datasets: datasets.list(showArchived), showArchived }));
  });

  r.post('/datasets', expert, (req, res) => {
    const form = parseForm(DatasetForm, req.body, req.t);
    const rerender = (errors: Record<string, string>) =>
      sendDocument(res, DatasetsPage({ ctx: pageContext(req), datasets: datasets.list(false), values: sentValues(req.body), errors, showArchived: false }), 422);
    if (!form.ok) return rerender(form.errors);
    try {
      const d = datasets.create(req.user!.id, form.data);
      redirectAfterPost(req, res, `/datasets/${d.id}`);
    } catch (err) {
      if (err instanceof DatasetError) return rerender({ [err.field]: req.t(err.key, err.params) });
      throw err;
    }
  });

  r.post('/datasets/example', expert, async (req, res) => {
    const ids = await loadExampleData(app, req.user!.id);
    redirectAfterPost(req, res, ids.length ? `/datasets/${ids[0]}` : '/datasets');
  });

  r.get('/datasets/:id', requireUser, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    // The search index cannot hold a NUL character (SQLite ends the text there): say so instead of failing.
    if (Object.values(req.query).some((v) => typeof v === 'string' && v.includes('\u0000'))) return sendError(req, res, 400, req.t('err.search_nul'));
    const state = listState(req.query);
    const list = sampleList(app, dataset.id, state);
    const ctx = pageContext(req);
    sendPageOrFragment(req, res,
      () => DatasetPage({ ctx, dataset, list, state, labelling: labellingSummary(app, dataset, req.user), trueScore: trueScoreLine(app, ctx, dataset) }),
      () => SampleTable({ ctx, dataset, list, state }));
  });

  r.get('/datasets/:id/settings', expert, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    sendDocument(res, DatasetSettingsPage({ ctx: pageContext(req), dataset, values: { ...dataset, archived: dataset.archived === 1, version: dataset.version } }));
  });

  r.post('/datasets/:id/settings', expert, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const form = parseForm(SettingsForm, req.body, req.t);
    // A refused form keeps the version it was read at; after a conflict it carries the current one.
    const rerender = (errors: Record<string, string>, status = 422) => sendDocument(res, DatasetSettingsPage({
      ctx: pageContext(req), dataset, errors,
      values: { ...sentValues(req.body), archived: req.body?.archived === '1', version: status === 409 ? dataset.version : Number(req.body?.version) || dataset.version } }), status);
    if (!form.ok) return rerender(form.errors);
    const { version, ...input } = form.data;
    try {
      datasets.update(req.user!.id, dataset.id, version, { ...input, archived: input.archived === '1' });
      req.session.flash = req.t('flash.saved');
      redirectAfterPost(req, res, `/datasets/${dataset.id}`);
    } catch (err) {
      if (err instanceof DatasetConflict) {
        app.log.info('dataset.conflict', { dataset: dataset.id, user: req.user!.id });
        // What this person typed stays in the form, against the current version: saving again is a conscious overwrite.
        return rerender({ _form: req.t('err.dataset_conflict', { name: err.current.name }) }, 409);
      }
      if (err instanceof DatasetError) return rerender({ [err.field]: req.t(err.key, err.params) });
      throw err;
    }
  });

  return r;
}
