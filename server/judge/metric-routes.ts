// HTTP for a dataset's metrics: prompt versions of every LLM step, custom rubric and composite metrics.
import { Router, type Request } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { hidden, parseForm, sentValues } from '../http/forms.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendDocument } from '../http/render.ts';
import { requireRole, requireUser } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import { rubricOutputFormat } from './prompts/rubric.ts';
import { PromptVersionConflict } from './prompt-store.ts';
import { LIMITS } from '../limits.ts';
import type { Language, MetricDefinition, PromptExample, PromptInUse, PromptTemplate } from './types.ts';
import { ragasMetricNames, ragasPromptFiles } from './ragas-prompts.ts';
import { hasSettings, METRIC_SETTINGS } from './metric-settings.ts';
import { identityChanges, identityOfRun, promptsIdentity, type JudgeIdentity } from '../calibration/judge-identity.ts';
import type { RecordedCalibration } from '../calibration/service.ts';
import type { RagasExportView } from '../../views/pages/metrics-ragas.tsx';
import { examplesError, exampleSkeleton } from './example-messages.ts';
import { strToU8, zipSync } from 'fflate';
import { calibratedJudge, ExportJudgeError } from '../calibration/export-judge.ts';
import { MetricsPage, type MetricView, type PromptDraft } from '../../views/pages/metrics.tsx';
import { ArchivedError } from '../datasets/archived.ts';

const ExampleList = z.array(z.unknown());

const PromptForm = z.object({
  metric: hidden(z.string().min(1)),
  step: hidden(z.string().min(1)),
  instruction: z.string().trim().min(1, { error: 'err.required' }).max(LIMITS.promptInstruction, { error: 'err.too_long' }),
  output_format: z.string().max(LIMITS.promptFormat, { error: 'err.too_long' }).default(''),
  examples: z.string().max(LIMITS.promptExamples, { error: 'err.too_long' }).default('[]').transform((s, c) => {
    try { return ExampleList.parse(JSON.parse(s || '[]')); } catch { c.addIssue({ code: 'custom', message: 'err.examples_json' }); return z.NEVER; }
  }),
  language: z.enum(['en', 'zh']),
  note: z.string().trim().max(LIMITS.promptNote).default(''),
  // The version the editor showed (0: the built-in default); missing reads as 0.
  based_on: z.coerce.number().int().min(0).catch(0),
});

const MetricForm = z.object({
  key: z.string().trim().min(1, { error: 'err.required' }).max(LIMITS.metricKey, { error: 'err.too_long' }).refine((s) => /^[\p{L}\p{N}_-]+$/u.test(s), { error: 'err.criterion_name' }),
  kind: z.enum(['custom', 'composite']),
  output: z.enum(['binary', 'categorical', 'scale_1_5', 'score_0_1']).default('score_0_1'),
  instruction: z.string().trim().max(LIMITS.promptInstruction).default(''),
  categories: z.string().max(10_000).default(''),
  components: z.string().max(10_000).default(''),
});

/** The Metrics page's Ragas section of one metric: what its export holds and which prompt versions each calibration is about. */
function ragasExportView(metric: MetricDefinition, current: Record<string, PromptInUse>, recorded: RecordedCalibration[], maxVersion: number): RagasExportView | null {
  const files = ragasPromptFiles(metric, current);
  if (!files) return null;
  const now = promptsIdentity(current);
  return {
    metric: metric.key, ragas_names: ragasMetricNames(metric), language: files.steps[0]!.language, max_version: maxVersion,
    current_prompts: promptVersions(now),
    calibrations: recorded.slice(0, 10).map((c) => {
      const judge = identityOfRun(c);
      const changes = identityChanges(judge, { ...judge, prompts: now });
      return { created_at: c.created_at, criterion: c.criterion, run: c.run, part: c.part, strength_name: c.strength_name, strength: c.strength,
        prompts: promptVersions(judge.prompts), model: judge.model, current: changes.length === 0 };
    }),
  };
}

function promptVersions(prompts: JudgeIdentity['prompts']) {
  return Object.entries(prompts).map(([step, p]) => ({ step, version: p.version }));
}

function metricSettingsView(app: AppContext, datasetId: number, key: string) {
  const { settings, version } = app.metricSettings.get(datasetId, key);
  return { values: settings, version, spec: METRIC_SETTINGS[key]! };
}

export function metricRoutes(app: AppContext): Router {
  const r = Router();
  const expert = requireRole('expert', app.log);
  const { datasets, registry, prompts } = app;

  function view(datasetId: number, language: Language): MetricView[] {
    const keys = [...registry.builtinKeys(), ...registry.custom(datasetId).map((m) => m.key)];
    const recorded = app.calibration.recordedInDataset(datasetId);
    return keys.map((key) => {
      const metric = registry.get(datasetId, key)!;
      const current = prompts.resolve(datasetId, metric, language);
      const steps = metric.steps.map((s) => ({ step: s.step, current: current[s.step]!, versions: prompts.versions(datasetId, key, s.step), shape: exampleSkeleton(s) }));
      return {
        key, kind: metric.kind, custom: !registry.builtinKeys().includes(key),
        ...(hasSettings(key) ? { settings: metricSettingsView(app, datasetId, key) } : {}),
        ragas: ragasExportView(metric, current, recorded.filter((c) => c.metric_key === key), Math.max(0, ...steps.map((s) => s.versions[0]?.version ?? 0))),
        steps,
      };
    });
  }

  function page(req: Request, datasetId: number, extra: { values?: Record<string, string>; errors?: Record<string, string>; draft?: PromptDraft } = {}) {
    const dataset = datasets.get(datasetId)!;
    return MetricsPage({ ctx: pageContext(req), dataset, metrics: view(dataset.id, dataset.language), ...extra });
  }

  r.get('/datasets/:id/metrics', requireUser, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    sendDocument(res, page(req, dataset.id));
  });

  r.post('/datasets/:id/prompts', expert, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const form = parseForm(PromptForm, req.body, req.t);
    const draft = { metric: String(req.body?.metric ?? ''), step: String(req.body?.step ?? ''), fields: sentValues(req.body) };
    if (!form.ok) {
      // The editor of the step the form names shows the refusal; a form naming none (its hidden metric or
      // step unreadable) has no editor to show it in: the refusal is the page.
      if (!registry.get(dataset.id, draft.metric)?.steps.some((s) => s.step === draft.step)) return sendError(req, res, 422, form.errors._form ?? req.t('err.bad_request'));
      return sendDocument(res, page(req, dataset.id, { errors: { prompt: Object.values(form.errors).join(' ') }, draft }), 422);
    }
    const metric = registry.get(dataset.id, form.data.metric);
    const step = metric?.steps.find((s) => s.step === form.data.step);
    if (!metric || !step) return sendError(req, res, 404, req.t('err.not_found'));
    // A version whose examples do not fit the step's own schema is refused, naming the example and field.
    const problem = examplesError(step, form.data.examples, req.t);
    if (problem) return sendDocument(res, page(req, dataset.id, { errors: { prompt: problem }, draft }), 422);
    const template: PromptTemplate = { instruction: form.data.instruction, output_format: form.data.output_format, examples: form.data.examples as PromptExample[], language: form.data.language };
    let saved;
    try {
      saved = prompts.save(req.user!.id, dataset.id, metric.key, form.data.step, template, form.data.note, form.data.based_on);
    } catch (err) {
      // Someone saved a version of this step meanwhile: this editor's text stays in the form, now on top of theirs.
      if (err instanceof PromptVersionConflict) {
        return sendDocument(res, page(req, dataset.id, { errors: { prompt: req.t('metrics.err_version_conflict', { n: err.latest.version, who: err.latest.creator_email ?? '—' }) }, draft }), 409);
      }
      throw err;
    }
    req.session.flash = req.t('metrics.version_saved', { n: saved.version });
    res.redirect(303, `/datasets/${dataset.id}/metrics#m-${metric.key}`);
  });

  r.post('/datasets/:id/metrics', expert, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const fail = (errors: Record<string, string>) => sendDocument(res, page(req, dataset.id, { values: sentValues(req.body), errors }), 422);
    const form = parseForm(MetricForm, req.body, req.t);
    if (!form.ok) return fail(form.errors);
    const f = form.data;
    if (registry.get(dataset.id, f.key)) return fail({ key: req.t('err.metric_key_taken') });
    let config: Record<string, unknown>;
    if (f.kind === 'custom') {
      if (!f.instruction.includes('{{answer}}')) return fail({ instruction: req.t('err.rubric_placeholder') });
      const categories = f.categories.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).map((l) => {
        const [value = '', score = ''] = l.split('|').map((x) => x.trim());
        return { value, score: Number(score) };
      });
      if (f.output === 'categorical' && (categories.length < 2 || categories.some((c) => !c.value || !(c.score >= 0 && c.score <= 1)))) return fail({ categories: req.t('err.categories') });
      const language = dataset.language;
      const template: PromptTemplate = { instruction: f.instruction, output_format: rubricOutputFormat(f.output, language, categories), examples: [], language };
      config = { prompt: { [language]: template }, output: f.output, ...(f.output === 'categorical' ? { categories } : {}) };
    } else {
      const components = f.components.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).map((l) => {
        const [metric = '', weight = ''] = l.split('=').map((x) => x.trim());
        return { metric, weight: Number(weight) };
      });
      if (!components.length || components.some((c) => !registry.get(dataset.id, c.metric) || !(c.weight > 0))) return fail({ components: req.t('err.components') });
      config = { components };
    }
    if (!registry.create(req.user!.id, dataset.id, f.key, f.kind, config)) return fail({ _form: req.t('err.invalid') });
    req.session.flash = req.t('metrics.created');
    res.redirect(303, `/datasets/${dataset.id}/metrics#m-${f.key}`);
  });

  // A built-in metric's settings; the form carries the version it read, a stale one is refused.
  r.post('/datasets/:id/metrics/:key/settings', expert, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    const key = String(req.params.key);
    if (!dataset || !hasSettings(key)) return sendError(req, res, 404, req.t('err.not_found'));
    const version = Number(req.body?.version);
    const given = Object.fromEntries(Object.keys(METRIC_SETTINGS[key]!).map((name) => [name, String(req.body?.[name] ?? '')]));
    let saved: boolean;
    try {
      saved = Number.isInteger(version) && version >= 0 && app.metricSettings.save(req.user!.id, dataset.id, key, given, version);
    } catch (err) {
      if (err instanceof ArchivedError) throw err; // answered 409 like every write to an archived dataset
      return sendDocument(res, page(req, dataset.id, { errors: { settings: req.t('err.run_bad_setting') } }), 422);
    }
    if (!saved) return sendDocument(res, page(req, dataset.id, { errors: { settings: req.t('ragas.settings_stale') } }), 409);
    req.session.flash = req.t('ragas.settings_saved');
    res.redirect(303, `/datasets/${dataset.id}/metrics#m-${key}`);
  });

  // The calibrated judge for a Python pipeline: the prompt files Ragas's load_prompts reads and
  // goldset-calibration.json, as one zip (the CLI's export-judge writes the same files to a folder).
  r.get('/datasets/:id/metrics/:key/export', requireUser, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    const metric = dataset && registry.get(dataset.id, String(req.params.key));
    if (!dataset || !metric) return sendError(req, res, 404, req.t('err.not_found'));
    // ?version=N: version N of every step (0: the built-in defaults), as `score --prompt-version N`; else the current ones.
    const raw = req.query.version === undefined || req.query.version === '' ? undefined : String(req.query.version);
    if (raw !== undefined && !/^\d{1,9}$/.test(raw)) return sendError(req, res, 422, req.t('err.bad_request'));
    const version = raw === undefined ? undefined : Number(raw);
    let judge;
    try {
      judge = calibratedJudge(app, dataset, metric, version);
    } catch (err) {
      if (err instanceof ExportJudgeError) return sendError(req, res, err.code === 'bad_version' ? 404 : 422, req.t(`ragas.export_${err.code}`));
      throw err;
    }
    const zip = zipSync(Object.fromEntries(judge.files.map((f) => [f.name, strToU8(f.content)])), { level: 6, mtime: new Date() });
    res.type('application/zip').attachment(`${metric.key}-prompts-${judge.language}.zip`).send(Buffer.from(zip));
  });

  return r;
}
