// HTTP for estimation samples (draw, extend) and the true-score section the calibration page and
// the dataset overview show.
import { Router, type Request } from 'express';
import { z } from 'zod';
import type { Html } from '../../views/jsx-runtime.ts';
import type { AppContext } from '../app-context.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import type { Criterion } from '../criteria/queries.ts';
import type { RunRow } from '../judge/run-queries.ts';
import type { FieldErrors } from '../http/forms.ts';
import { pageContext, sendError } from '../http/page.ts';
import { redirectAfterPost, sendDocument, sendHtml, wantsFragment } from '../http/render.ts';
import { can, requireRole } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import { systemNames } from '../responses/queries.ts';
import { EstimateError, type EstimateResult } from './service.ts';
import type { PageContext } from '../../views/layout.tsx';
import { DrawSampleForm, DrawSamplePage, EstimateSection, type DrawFormValues, type EstimateSectionModel, type ReturnTo, type ScopeRow,
  type SampleView } from '../../views/pages/estimate.tsx';
import type { EstimateOverviewModel } from '../../views/pages/estimate-overview.tsx';
import { LIMITS } from '../limits.ts';

/** Systems shown side by side at most (each one is an estimate over its responses). */
const MAX_SYSTEMS_SHOWN = 12;
/** The draw form's suggested size: enough for ±0.07 on a pass rate by the experts alone. */
const DEFAULT_DRAW = 200;

const Back = z.object({
  criterion: z.coerce.number().int().positive().catch(0),
  run: z.coerce.number().int().positive().catch(0),
  part: z.enum(['calibration', 'held_out', 'all']).catch('calibration'),
  threshold: z.coerce.number().min(0).max(1).catch(0.5),
});

const SectionQuery = z.object({
  system: z.string().max(LIMITS.system).catch(''),
  h: z.coerce.number().positive().max(1000).optional().catch(undefined),
  a: z.string().max(500).optional().catch(undefined),
  b: z.string().max(500).optional().catch(undefined),
});

function backUrl(datasetId: number, back: ReturnTo): string {
  const p = new URLSearchParams({ criterion: String(back.criterion), run: String(back.run), part: back.part, threshold: String(back.threshold) });
  return `/datasets/${datasetId}/calibration?${p.toString()}#true-score`;
}

export interface SectionState { criterion: Criterion; run: RunRow; part: string; threshold: number }

/** The true-score section of the calibration page for its criterion, run and threshold. */
export function estimateSection(app: AppContext, req: Request, ctx: PageContext, dataset: DatasetRow, state: SectionState,
  draw?: { values: DrawFormValues; errors?: FieldErrors }): Html {
  const q = SectionQuery.parse(req.query ?? {});
  const systems = [...systemNames(app, dataset.id)];
  const estimate = (system: string | null) => app.estimates.estimate({ criterion: state.criterion, run: state.run, system, threshold: state.threshold, halfWidth: q.h });
  const row = (key: string, label: string, r: Readonly<EstimateResult>): ScopeRow => ({ key, label, scope: r.scope, sampleId: r.sample?.id ?? null });
  const all = estimate(null);
  const rows: ScopeRow[] = systems.length > 1
    ? [row('', ctx.t('est.all_systems'), all), ...systems.slice(0, MAX_SYSTEMS_SHOWN).map((s) => row(s, s, estimate(s)))]
    : [row('', systems[0] || ctx.t('est.all_systems'), all)];
  const focusKey = systems.includes(q.system) ? q.system : rows.find((r) => r.sampleId !== null)?.key ?? '';
  const focusResult = focusKey ? estimate(focusKey) : all;
  const focus = rows.find((r) => r.key === focusKey) ?? rows[0]!;
  const sample = focusResult.sample;
  const sampleView: SampleView | null = sample && {
    id: sample.id, items: sample.n_items, scope: sample.system ?? ctx.t('est.all_systems'), at: sample.created_at, by: sample.creator_email,
    draws: app.estimates.draws(sample.id).map((d) => ({ id: d.id, drawn: d.drawn, frame: d.frame_size, seed: d.seed, at: d.created_at, by: d.creator_email })),
  };
  const a = q.a && systems.includes(q.a) ? q.a : systems[0]!;
  const b = q.b && systems.includes(q.b) ? q.b : systems[1]!;
  const back: ReturnTo = { criterion: state.criterion.id, run: state.run.id, part: state.part, threshold: state.threshold };
  const c = state.criterion;
  const m: EstimateSectionModel = {
    datasetId: dataset.id, back,
    domain: c.kind === 'ordinal' && c.scale_min !== null && c.scale_max !== null ? [c.scale_min, c.scale_max] : [0, 1],
    refusal: all.refusal, rows, focus, bias: focusResult.bias, notCovered: focusResult.not_covered, sample: sampleView, systems,
    halfWidth: focusResult.half_width,
    comparison: systems.length > 1 ? { a, b, result: a === b ? null : app.estimates.compare(estimate(a), estimate(b)) } : null,
    canDraw: can(req.user?.role, 'expert') && !dataset.archived,
    canLabel: app.labels.canLabel(dataset.id, req.user),
    draw: draw ?? { values: { system: '', size: String(Math.max(1, Math.min(DEFAULT_DRAW, all.scope ? all.scope.n_labelled + all.scope.n_unlabelled : DEFAULT_DRAW))), seed: '' } },
  };
  return EstimateSection({ ctx, m });
}

/** The dataset overview's line: the newest run against the first criterion the true score applies to. */
export function estimateOverview(app: AppContext, dataset: DatasetRow): EstimateOverviewModel | null {
  const criterion = app.criteria.forDataset(dataset.id).find((c) => c.target === 'response' && c.kind !== 'categorical');
  const run = app.runner.queries.forDataset(dataset.id).find((r) => r.status === 'done');
  if (!criterion || !run) return null;
  const r = app.estimates.estimate({ criterion, run, system: null, threshold: 0.5 });
  if (!r.scope) return null;
  return {
    datasetId: dataset.id, criterionId: criterion.id, runId: run.id, criterion: criterion.name, run: run.name, hasSample: r.sample !== null,
    corrected: r.scope.corrected, judge: r.scope.judge_only, completed: r.scope.sample.completed, drawn: r.scope.sample.drawn,
  };
}

export function estimateRoutes(app: AppContext): Router {
  const r = Router();
  const expert = requireRole('expert', app.log);

  function datasetOf(req: Request): DatasetRow | { status: number; message: string } {
    const dataset = app.datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return { status: 404, message: req.t('err.not_found') };
    // An archived dataset is refused by the service (ArchivedError, answered 409 like every write).
    return dataset;
  }

  r.post('/datasets/:id/estimate/samples', expert, (req, res) => {
    const dataset = datasetOf(req);
    if ('status' in dataset) return sendError(req, res, dataset.status, dataset.message);
    const back = Back.parse(req.body ?? {});
    const body = (req.body ?? {}) as Record<string, unknown>;
    const values: DrawFormValues = { system: String(body.system ?? '').slice(0, 500), size: String(body.size ?? '').trim().slice(0, 20), seed: String(body.seed ?? '').trim().slice(0, 20) };
    const systems = systemNames(app, dataset.id);
    const errors: FieldErrors = {};
    const size = /^\d{1,9}$/.test(values.size) ? Number(values.size) : NaN;
    const seed = values.seed === '' ? undefined : /^\d{1,12}$/.test(values.seed) ? Number(values.seed) : NaN;
    try {
      const result = app.estimates.draw(req.user!.id, dataset.id, { system: values.system || null, size, seed, systems });
      req.session.flash = req.t('est.drawn', { n: result.draw.drawn, id: result.sample.id, seed: result.draw.seed });
      return redirectAfterPost(req, res, backUrl(dataset.id, back));
    } catch (err) {
      if (!(err instanceof EstimateError)) throw err;
      const field = err.key === 'est.err_size' ? 'size' : err.key === 'est.err_seed' ? 'seed' : err.key === 'est.err_system' ? 'system' : '_form';
      errors[field] = req.t(err.key, err.params);
    }
    app.log.info('estimate.draw_refused', { dataset: dataset.id, user: req.user!.id, fields: Object.keys(errors) });
    const m = { datasetId: dataset.id, back, systems: [...systems], draw: { values, errors } };
    const ctx = pageContext(req);
    if (wantsFragment(req)) return sendHtml(res, DrawSampleForm({ ctx, m }), 422);
    sendDocument(res, DrawSamplePage({ ctx, title: dataset.name, m }), 422);
  });

  r.post('/datasets/:id/estimate/samples/:sid/extend', expert, (req, res) => {
    const dataset = datasetOf(req);
    if ('status' in dataset) return sendError(req, res, dataset.status, dataset.message);
    const sample = app.estimates.sample(idParam(req.params.sid) ?? 0);
    if (!sample || sample.dataset_id !== dataset.id) return sendError(req, res, 404, req.t('err.not_found'));
    const back = Back.parse(req.body ?? {});
    const body = (req.body ?? {}) as Record<string, unknown>;
    const raw = String(body.size ?? '');
    // The sample as the page showed it: a second click, or someone else's extension since, is refused.
    const expected = /^\d{1,9}$/.test(String(body.items ?? '')) ? Number(body.items) : undefined;
    try {
      const result = app.estimates.extend(req.user!.id, sample.id, { size: /^\d{1,9}$/.test(raw) ? Number(raw) : NaN, expectedItems: expected });
      req.session.flash = req.t('est.extended', { n: result.draw.drawn, id: sample.id, seed: result.draw.seed });
      redirectAfterPost(req, res, backUrl(dataset.id, back));
    } catch (err) {
      if (!(err instanceof EstimateError)) throw err;
      sendError(req, res, 422, req.t(err.key, err.params));
    }
  });

  return r;
}
