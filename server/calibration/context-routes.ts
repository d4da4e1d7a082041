// HTTP for the per-context calibration report (a per-context criterion against a context_precision run)
// and recording it as the metric's calibration, which the CI gate and the calibrated-judge export read.
import { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendPageOrFragment } from '../http/render.ts';
import { requireRole, requireUser } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import type { Criterion } from '../criteria/queries.ts';
import type { RunRow } from '../judge/run-queries.ts';
import { contextRuns } from './context-service.ts';
import { PARTS, type Part } from './service.ts';
import { ContextCalibrationPage, ContextReportBody, type ContextPageModel, type ContextReportModel } from '../../views/pages/calibration-context.tsx';

const Query = z.object({
  criterion: z.coerce.number().int().positive().optional().catch(undefined),
  run: z.coerce.number().int().positive().optional().catch(undefined),
  part: z.enum(PARTS as [Part, ...Part[]]).catch('calibration'),
});

export interface ContextState { criterion: Criterion; run: RunRow; part: Part }

export function contextCalibrationRoutes(app: AppContext): Router {
  const r = Router();
  const { datasets, criteria, runner, calibration, contextCalibration } = app;

  /** The dataset's per-context criteria and the runs they can be calibrated against. */
  function choices(dataset: DatasetRow) {
    return { criteria: criteria.forDataset(dataset.id).filter((c) => c.target === 'context'), runs: contextRuns(runner.queries.forDataset(dataset.id)) };
  }

  function resolve(dataset: DatasetRow, query: unknown): ContextState | null {
    const q = Query.parse(query ?? {});
    const { criteria: cs, runs } = choices(dataset);
    const criterion = cs.find((c) => c.id === q.criterion) ?? cs[0];
    const run = runs.find((x) => x.id === q.run) ?? runs[0];
    return criterion && run ? { criterion, run, part: q.part } : null;
  }

  function reportModel(dataset: DatasetRow, state: ContextState): ContextReportModel {
    const { report } = contextCalibration.report({ ...state, holdoutSeed: dataset.holdout_seed });
    return {
      datasetId: dataset.id, criterionId: state.criterion.id, runId: state.run.id, part: state.part, report,
      reviewHref: `/runs/${state.run.id}/review/contexts?criterion=${state.criterion.id}${state.part === 'all' ? '' : `&part=${state.part}`}`,
    };
  }

  r.get('/datasets/:id/calibration/contexts', requireUser, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const state = resolve(dataset, req.query);
    const ctx = pageContext(req);
    const body = state ? reportModel(dataset, state) : null;
    const { criteria: cs, runs } = choices(dataset);
    const model: ContextPageModel = {
      dataset: { id: dataset.id, name: dataset.name },
      criteria: cs.map((c) => ({ id: c.id, name: c.name })), runs: runs.map((x) => ({ id: x.id, label: `${x.name} · ${x.metric_key}` })),
      state: state && { criterionId: state.criterion.id, runId: state.run.id, part: state.part }, body,
    };
    sendPageOrFragment(req, res, () => ContextCalibrationPage({ ctx, model }), () => (body ? ContextReportBody({ ctx, model: body }) : ContextCalibrationPage({ ctx, model })));
  });

  r.post('/datasets/:id/calibration/contexts/record', requireRole('expert', app.log), (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const state = resolve(dataset, req.body);
    if (!state || Number(req.body?.criterion) !== state.criterion.id || Number(req.body?.run) !== state.run.id) return sendError(req, res, 422, req.t('err.bad_request'));
    const input = { ...state, holdoutSeed: dataset.holdout_seed };
    const { report, responses } = contextCalibration.report(input);
    calibration.record(req.user!.id, input, report, responses.map((x) => x.id));
    req.session.flash = req.t('calib.recorded');
    res.redirect(303, `/datasets/${dataset.id}/calibration/contexts?criterion=${state.criterion.id}&run=${state.run.id}&part=${state.part}`);
  });

  return r;
}
