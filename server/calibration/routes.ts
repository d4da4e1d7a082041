// HTTP for the calibration report (live threshold via htmx) and recording a calibration for the CI gate.
import { Router, type Request } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendPageOrFragment } from '../http/render.ts';
import { requireRole, requireUser } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import { kappaCurve } from './report.ts';
import { PARTS, type Part } from './service.ts';
import { pairWarning, suggestPairs } from './suggest.ts';
import { holdoutLooks } from './holdout-looks.ts';
import { CalibrationPage, ReportBody, type ReportState } from '../../views/pages/calibration.tsx';
import type { ChartPoint } from '../../views/charts.tsx';
import { estimateSection } from '../estimate/routes.ts';
import { keepEstimate } from '../estimate/cli.ts';

const Query = z.object({
  criterion: z.coerce.number().int().positive().optional().catch(undefined),
  run: z.coerce.number().int().positive().optional().catch(undefined),
  part: z.enum(PARTS as [Part, ...Part[]]).catch('calibration'),
  threshold: z.coerce.number().min(0).max(1).catch(0.5),
});

export function calibrationRoutes(app: AppContext): Router {
  const r = Router();
  const { datasets, criteria, runner, calibration } = app;

  /** The pairs worth calibrating, best first (server/calibration/suggest.ts). */
  function suggestions(dataset: DatasetRow) {
    const cs = criteria.forDataset(dataset.id).filter((c) => c.target === 'response');
    return suggestPairs(cs, runner.queries.forDataset(dataset.id), calibration.calibratedPairs(dataset.id));
  }

  function resolve(dataset: DatasetRow, query: unknown, suggested = suggestions(dataset)): ReportState | null {
    const q = Query.parse(query ?? {});
    const cs = criteria.forDataset(dataset.id).filter((c) => c.target === 'response');
    const runs = runner.queries.forDataset(dataset.id);
    // An archived run stays readable when asked for by id; only the default leaves it out.
    const asked = q.run === undefined ? undefined : runner.queries.byId(q.run);
    const askedRun = asked && asked.dataset_id === dataset.id ? asked : undefined;
    const askedCriterion = cs.find((c) => c.id === q.criterion);
    // Without a choice, the best suggested pair (not the first criterion against the newest run).
    const best = suggested.find((p) => (!askedCriterion || p.criterion.id === askedCriterion.id) && (!askedRun || p.run.id === askedRun.id));
    const criterion = askedCriterion ?? best?.criterion ?? cs[0];
    const run = askedRun ?? best?.run ?? runs[0];
    return criterion && run ? { criterion, run, part: q.part, threshold: q.threshold } : null;
  }

  function body(req: Request, ctx: ReturnType<typeof pageContext>, dataset: DatasetRow, state: ReportState) {
    const { report, pairs } = calibration.report({ ...state, holdoutSeed: dataset.holdout_seed });
    // The charts' data, like the report, is kept until the dataset's data changes.
    const key = `report-charts:${state.criterion.id}:${state.run.id}:${state.part}:${state.threshold ?? ''}:${dataset.holdout_seed}`;
    const { points, curve } = app.derived.get(dataset.id, key, () => {
      // The pairs themselves (no copy of each): those with a score and a gold value are chart points.
      const points = pairs.filter((p): p is typeof p & ChartPoint => p.scoreStatus === 'ok' && p.score !== null && p.gold !== null);
      const curve = state.criterion.kind === 'binary' ? kappaCurve(points.map((p) => p.score), points.map((p) => p.gold === '1'), 41) : null;
      return { points, curve };
    }, calibration.unlessGoldChanged(state.criterion, () => pairs)); // the pairs the charts were drawn from
    return ReportBody({ ctx, dataset, state, report, points, curve, looks: holdoutLooks(app, state.run), lead: estimateSection(app, req, ctx, dataset, state) });
  }

  r.get('/datasets/:id/calibration', requireUser, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    // A per-context criterion has its own report.
    const all = criteria.forDataset(dataset.id);
    if (all.some((c) => c.target === 'context' && c.id === Number(req.query.criterion))) {
      return res.redirect(302, `/datasets/${dataset.id}/calibration/contexts?${req.originalUrl.split('?')[1] ?? ''}`);
    }
    const contextsHref = all.some((c) => c.target === 'context') ? `/datasets/${dataset.id}/calibration/contexts` : undefined;
    const suggested = suggestions(dataset);
    const state = resolve(dataset, req.query, suggested);
    // One page context per request: reading it takes the flash message out of the session.
    const ctx = pageContext(req);
    const content = state ? body(req, ctx, dataset, state) : null;
    const runs = runner.queries.forDataset(dataset.id);
    sendPageOrFragment(req, res,
      () => CalibrationPage({ ctx, dataset, criteria: all.filter((c) => c.target === 'response'),
        // An archived run asked for by id is offered too, so the picker shows what the report is about.
        runs: state && !runs.some((r) => r.id === state.run.id) ? [state.run, ...runs] : runs, state, body: content, contextsHref,
        suggestions: state ? { pairs: suggested.slice(0, 4), warning: pairWarning(state.criterion, state.run.metric_key) } : null }),
      () => content ?? CalibrationPage({ ctx, dataset, criteria: [], runs: [], state: null, body: null }));
  });

  r.post('/datasets/:id/calibration/record', requireRole('expert', app.log), (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const state = resolve(dataset, req.body);
    if (!state) return sendError(req, res, 422, req.t('err.bad_request'));
    const input = { ...state, holdoutSeed: dataset.holdout_seed };
    const { report, pairs } = calibration.report(input);
    const id = calibration.record(req.user!.id, input, report, pairs.map((p) => p.id));
    keepEstimate(app, id, state);
    req.session.flash = req.t('calib.recorded');
    res.redirect(303, `/datasets/${dataset.id}/calibration?criterion=${state.criterion.id}&run=${state.run.id}&part=${state.part}&threshold=${state.threshold}`);
  });

  return r;
}
