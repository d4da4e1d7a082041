// HTTP for scoring runs: start one, watch it, cancel it, read its scores and each score's trace.
import { unchangedByLabels } from '../db/derived-cache.ts';
import { Router, type Request } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { nameText, pageNumber, parseForm, sentValues } from '../http/forms.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendDocument, sendHtml, sendPageOrFragment } from '../http/render.ts';
import { requireRole, requireUser } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import { RunError } from './runner.ts';
import { CHINESE_AWARE_METRICS } from './metrics/index.ts';
import type { RunSummary } from './run-queries.ts';
import { systemNames } from '../responses/queries.ts';
import { RunPage, RunProgress, RunsPage, ScoresSection, TracePage } from '../../views/pages/runs.tsx';
import { planRuns } from './run-plan.ts';
import { LIMITS } from '../limits.ts';
import { releaseSelection } from '../releases/runs.ts';

const RunForm = z.object({
  metric: z.string().min(1, { error: 'err.required' }),
  name: nameText(LIMITS.runName),
  system: z.string().max(LIMITS.system).default(''),
  prompt_version: z.string().trim().default('').transform((s) => (s === '' ? undefined : Number(s))).pipe(z.number({ error: 'err.invalid' }).int({ error: 'err.invalid' }).min(0, { error: 'err.invalid' }).optional()),
  release: z.string().trim().max(80).default(''),
  concurrency: z.coerce.number({ error: 'err.invalid' }).int({ error: 'err.invalid' }).min(1, { error: 'err.invalid' }).max(256, { error: 'err.invalid' }).default(16),
});
const PAGE = 100;

export function runRoutes(app: AppContext): Router {
  const r = Router();
  const expert = requireRole('expert', app.log);
  const { datasets, runner, registry } = app;

  /** The metrics a run can use; on a Chinese dataset goldset's Chinese-aware BLEU and ROUGE-L are marked as the ones to pick. */
  function metricsFor(datasetId: number, language: string) {
    return [...registry.builtinKeys().map((k) => ({ key: k, kind: registry.get(datasetId, k)!.kind, suggested: language === 'zh' && CHINESE_AWARE_METRICS.includes(k) })),
      ...registry.custom(datasetId).map((m) => ({ key: m.key, kind: registry.get(datasetId, m.key)?.kind ?? 'llm', suggested: false }))];
  }

  const NO_SCORES: RunSummary = { scored: 0, errored: 0, skipped: 0, mean: null, reasons: [] };

  /** Every run of the dataset with its figures; the figures are kept until the dataset's data (scores included) changes. */
  function runsWithSummaries(datasetId: number, includeArchived: boolean) {
    const summaries = app.derived.get(datasetId, 'run-summaries', () => runner.queries.summaries(datasetId), unchangedByLabels);
    return runner.queries.forDataset(datasetId, includeArchived).map((run) => ({ run, summary: summaries.get(run.id) ?? NO_SCORES }));
  }

  function runsPage(req: Request, datasetId: number, extra: { values?: Record<string, string>; errors?: Record<string, string> } = {}) {
    const dataset = datasets.get(datasetId)!;
    const showArchived = req.query.archived === '1';
    const metrics = metricsFor(dataset.id, dataset.language);
    const settings = app.judgeSettings.effective();
    return RunsPage({
      ctx: pageContext(req), dataset, metrics, systems: systemNames(app, dataset.id),
      runs: runsWithSummaries(dataset.id, showArchived), showArchived, releases: app.releases.list(dataset.id).map((x) => x.tag),
      judgeReady: settings !== null, ...extra,
      plan: { metrics: planRuns(app, dataset, metrics.map((m) => registry.get(dataset.id, m.key)!)), priced: settings !== null && (settings.price_prompt > 0 || settings.price_completion > 0),
        embeddingModel: settings?.embedding_model ?? '' },
    });
  }

  r.get('/datasets/:id/runs', requireUser, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    sendDocument(res, runsPage(req, dataset.id));
  });

  r.post('/runs/:id/archive', expert, (req, res) => {
    const loaded = loadRun(req.params.id);
    if (!loaded) return sendError(req, res, 404, req.t('err.not_found'));
    const archived = req.body?.archived === '1';
    runner.setArchived(req.user!.id, loaded.run.id, archived);
    req.session.flash = req.t(archived ? 'fh.run_archived' : 'fh.run_unarchived');
    res.redirect(303, `/runs/${loaded.run.id}`);
  });

  r.post('/datasets/:id/runs', expert, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const form = parseForm(RunForm, req.body, req.t);
    if (!form.ok) return sendDocument(res, runsPage(req, dataset.id, { values: sentValues(req.body), errors: form.errors }), 422);
    const name = form.data.name || `${form.data.metric} ${new Date().toISOString().slice(0, 16).replace('T', ' ')}`;
    const release = form.data.release ? app.releases.byTag(dataset.id, form.data.release) : undefined;
    if (form.data.release && !release) return sendDocument(res, runsPage(req, dataset.id, { values: sentValues(req.body), errors: { release: req.t('err.not_found') } }), 422);
    try {
      const run = runner.create(req.user!.id, dataset.id, {
        name, metricKey: form.data.metric, promptVersion: form.data.prompt_version, concurrency: form.data.concurrency,
        selection: release ? releaseSelection(app, release, form.data.system) : form.data.system ? { system: form.data.system } : {},
      });
      void runner.start(run.id);
      app.log.info('run.started', { run: run.id, metric: run.metric_key, user: req.user!.id });
      res.redirect(303, `/runs/${run.id}`);
    } catch (err) {
      if (err instanceof RunError) {
        const field = err.code.startsWith('name_') ? 'name' : err.code === 'bad_prompt_version' ? 'prompt_version' : '_form';
        return sendDocument(res, runsPage(req, dataset.id, { values: sentValues(req.body), errors: { [field]: req.t(err.key, err.params) } }), 422);
      }
      throw err;
    }
  });

  function loadRun(id: unknown) {
    const run = runner.queries.byId(idParam(id) ?? 0);
    return run ? { run, dataset: datasets.get(run.dataset_id)! } : null;
  }

  r.get('/runs/:id', requireUser, (req, res) => {
    const loaded = loadRun(req.params.id);
    if (!loaded) return sendError(req, res, 404, req.t('err.not_found'));
    const { run, dataset } = loaded;
    const page = pageNumber.parse(req.query.page);
    const status = ['ok', 'error', 'skipped'].includes(String(req.query.status)) ? String(req.query.status) : '';
    const scores = runner.queries.scores(run.id, { limit: PAGE + 1, offset: (page - 1) * PAGE, status: status || null });
    const ctx = pageContext(req);
    const list = { ctx, run, scores: scores.slice(0, PAGE), page, more: scores.length > PAGE, status, language: dataset.language };
    // htmx asks for the scores table alone when the live progress reports the run finished (run-finished).
    sendPageOrFragment(req, res, () => RunPage({ ...list, dataset, summary: runner.queries.summary(run.id), cost: costOf(run), looks: app.holdoutLooks.ofRun(run.id) }),
      () => ScoresSection(list));
  });

  function costOf(run: { prompt_tokens: number; completion_tokens: number }) {
    return app.judgeSettings.estimateCost({ prompt: run.prompt_tokens, completion: run.completion_tokens });
  }

  r.get('/runs/:id/progress', requireUser, (req, res) => {
    const loaded = loadRun(req.params.id);
    if (!loaded) return sendError(req, res, 404, req.t('err.not_found'));
    const { run } = loaded;
    // The last poll, once the run has stopped, tells the scores table to load itself (STYLE.md 6). The event
    // is sent to the table itself: the progress element it would otherwise fire on has just been swapped out.
    if (run.status !== 'running' && run.status !== 'queued') res.set('HX-Trigger', JSON.stringify({ 'run-finished': { target: '#scores' } }));
    sendHtml(res, RunProgress({ ctx: pageContext(req), run, summary: runner.queries.summary(run.id), cost: costOf(run) }));
  });

  r.post('/runs/:id/cancel', expert, (req, res) => {
    const loaded = loadRun(req.params.id);
    if (!loaded) return sendError(req, res, 404, req.t('err.not_found'));
    runner.cancel(req.user!.id, loaded.run.id);
    req.session.flash = req.t('runs.cancelled_flash');
    res.redirect(303, `/runs/${loaded.run.id}`);
  });

  r.get('/runs/:id/scores/:rid', requireUser, (req, res) => {
    const loaded = loadRun(req.params.id);
    const score = loaded && runner.queries.score(loaded.run.id, idParam(req.params.rid) ?? 0);
    const response = score && app.responses.byId(score.response_id);
    if (!loaded || !score || !response) return sendError(req, res, 404, req.t('err.not_found'));
    sendDocument(res, TracePage({ ctx: pageContext(req), dataset: loaded.dataset, run: loaded.run, score,
      item: { question: response.question, answer: response.answer, ground_truth: response.ground_truth, retrieved_contexts: JSON.parse(response.retrieved_contexts) as string[] } }));
  });

  return r;
}
