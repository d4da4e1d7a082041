// HTTP for prompt iteration with a holdout: draft next to current, few-shot examples from expert
// labels of the calibration part, runs on the calibration part, the held-out final check, comparison.
import { Router, type Request } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendDocument } from '../http/render.ts';
import { requireRole, requireUser } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import type { Criterion } from '../criteria/queries.ts';
import type { LabelledItem, PromptExample, PromptInUse, PromptTemplate, StepDefinition, Trace } from '../judge/types.ts';
import { exampleFromTrace } from '../judge/examples.ts';
import { examplesError, exampleSkeleton } from '../judge/example-messages.ts';
import { RunError } from '../judge/runner.ts';
import { holdoutPart } from './holdout.ts';
import { comparePromptVersions } from './compare.ts';
import { exampleItems } from './service.ts';
import { LIMITS } from '../limits.ts';
import { inDataset } from '../datasets/scoped.ts';
import { isContextStep, labContext, parseCandidateValue } from './lab-context.ts';
import { ComparePage, PromptLabPage, type ExampleCandidate, type LabState } from '../../views/pages/prompt-lab.tsx';
import { ContextComparePage } from '../../views/pages/compare-context.tsx';
import { HoldoutConfirmPage } from '../../views/pages/holdout-looks.tsx';

const ExampleList = z.array(z.object({ input: z.record(z.string(), z.unknown()), output: z.unknown(), response_id: z.number().int().optional() }).loose());
const Draft = z.object({
  instruction: z.string().trim().min(1).max(LIMITS.promptInstruction),
  output_format: z.string().max(LIMITS.promptFormat).default(''),
  examples: z.string().max(LIMITS.promptExamples).default('[]'),
  language: z.enum(['en', 'zh']),
  note: z.string().trim().max(LIMITS.promptNote).default(''),
});

export function labRoutes(app: AppContext): Router {
  const r = Router();
  const expert = requireRole('expert', app.log);
  const { datasets, registry, prompts, criteria, calibration, runner, responses, contextCalibration } = app;
  const lab = labContext(app.db, contextCalibration);

  /**
   * Which items may become examples for this user: never one of an estimation sample (the true score's
   * sample must stay random), and only items whose labels the user may read (access/permissions.ts).
   */
  function offeredTo(user: Request['user'], datasetId: number): (responseId: number) => boolean {
    const sampled = app.estimates.sampledIds(datasetId);
    const readable = app.access.readableItems(user, datasetId);
    return (id) => !sampled.has(id) && (readable === null || readable.has(id));
  }

  function llmMetrics(datasetId: number): string[] {
    return [...registry.builtinKeys(), ...registry.custom(datasetId).map((m) => m.key)].filter((k) => registry.get(datasetId, k)?.kind === 'llm');
  }

  /** The candidates for few-shot examples: their item and the first expert note, in one query (texts cut to the limits). */
  const candidateRows = app.db.prepare<[string], {
    id: number; question: string; answer: string; ground_truth: string; retrieved_contexts: string; reference_contexts: string;
    rationale: string | null; corrected_answer: string | null;
  }>(`
    SELECT r.id, substr(s.question, 1, ${LIMITS.question}) AS question, substr(r.answer, 1, ${LIMITS.answer}) AS answer,
      substr(s.ground_truth, 1, ${LIMITS.groundTruth}) AS ground_truth, r.retrieved_contexts, s.reference_contexts,
      substr(f.rationale, 1, ${LIMITS.rationale}) AS rationale, substr(f.corrected_answer, 1, ${LIMITS.correctedAnswer}) AS corrected_answer
    FROM response r JOIN sample s ON s.id = r.sample_id
    LEFT JOIN annotation f ON f.id = (SELECT a.id FROM annotation a WHERE a.response_id = r.id AND a.state = 'submitted'
      AND (a.rationale <> '' OR a.corrected_answer <> '') ORDER BY a.submitted_at LIMIT 1)
    WHERE r.id IN (SELECT value FROM json_each(?))`);

  /** Of the given items, those a goldset run of the metric has a trace for that records the step's input; the newest run's. */
  const traced = app.db.prepare<{ ds: number; metric: string; step: string; ids: string }, { response_id: number; run_id: number }>(`
    SELECT sc.response_id, max(sc.run_id) AS run_id FROM score sc JOIN run r ON r.id = sc.run_id
    WHERE r.dataset_id = @ds AND r.metric_key = @metric AND r.source = 'goldset' AND sc.trace IS NOT NULL
      AND sc.response_id IN (SELECT value FROM json_each(@ids))
      AND EXISTS (SELECT 1 FROM json_each(sc.trace, '$.steps') j WHERE json_extract(j.value, '$.step') = @step
        AND json_type(j.value, '$.input') = 'object' AND json_extract(j.value, '$.error') IS NULL)
    GROUP BY sc.response_id`);

  /** Items of each holdout part that have a gold value for the criterion (per-context: for any context), in id order. */
  function parts(dataset: DatasetRow, gold: ReadonlyMap<number, unknown>): Record<'calibration' | 'held_out', number[]> {
    const out = { calibration: [] as number[], held_out: [] as number[] };
    // One numeric sort of a typed copy: a comparator sort of 100,000 ids costs a view tens of milliseconds.
    for (const id of Float64Array.from([...gold.keys()]).sort()) out[holdoutPart(dataset.holdout_seed, id)].push(id);
    return out;
  }

  const goldOf = (criterion: Criterion): ReadonlyMap<number, unknown> =>
    (criterion.target === 'context' ? contextCalibration.goldFor(criterion) : calibration.goldFor(criterion));

  const partIds = (dataset: DatasetRow, criterionId: number, part: 'calibration' | 'held_out'): number[] =>
    parts(dataset, goldOf(criteria.get(criterionId)!))[part];

  /**
   * The lab's state for a user; few-shot candidates show gold values and expert rationales, so only
   * items whose labels the user may read are candidates (access/permissions.ts).
   */
  function state(dataset: DatasetRow, user: Request['user'], q: Record<string, unknown>, draft?: PromptTemplate): LabState | null {
    const metrics = llmMetrics(dataset.id);
    const all = criteria.forDataset(dataset.id);
    // A dataset labelled only per context starts on the step those labels speak to; otherwise on the
    // metric the judge ran last (its runs are what the lab compares), else the first.
    const judgeRuns = runner.queries.forDataset(dataset.id).filter((x) => x.source === 'goldset');
    const lastRun = judgeRuns.find((x) => metrics.includes(x.metric_key))?.metric_key;
    const fallback = !all.some((c) => c.target === 'response') && all.some((c) => c.target === 'context') && metrics.includes('context_precision') ? 'context_precision' : lastRun ?? metrics[0];
    const metricKey = metrics.includes(String(q.metric)) ? String(q.metric) : fallback;
    if (!metricKey) return null;
    const metric = registry.get(dataset.id, metricKey)!;
    const steps = metric.steps.map((s) => s.step);
    const step = steps.includes(String(q.step)) ? String(q.step) : steps[0]!;
    // The verify step is judged per retrieved context: its examples and figures come from per-context criteria.
    const contextStep = isContextStep(metricKey, step);
    const cs = all.filter((c) => c.target === (contextStep ? 'context' : 'response'));
    const criterion = cs.find((c) => c.id === Number(q.criterion)) ?? cs[0];
    if (!criterion) return null;
    const current = prompts.resolve(dataset.id, metric, dataset.language)[step]!;
    const split = parts(dataset, goldOf(criterion));
    const isOffered = offeredTo(user, dataset.id);
    const definition = metric.steps.find((x) => x.step === step)!;
    let candidates: ExampleCandidate[] = [];
    if (!contextStep) {
      const gold = calibration.goldFor(criterion);
      const shown = split.calibration.filter(isOffered).slice(0, 40);
      const rows = new Map(candidateRows.all(JSON.stringify(shown)).map((r) => [r.id, r]));
      const fromTrace = new Set(traced.all({ ds: dataset.id, metric: metricKey, step, ids: JSON.stringify(shown) }).map((t) => t.response_id));
      candidates = shown.flatMap((id) => {
        const r = rows.get(id);
        if (!r) return [];
        const fromLabel = definition.fromLabel ? definition.fromLabel(toLabelled(r, gold.get(id)!, criterion)).length > 0 : false;
        return [{ response_id: id, question: r.question, answer: r.answer, gold: gold.get(id)!, rationale: r.rationale ?? '', corrected_answer: r.corrected_answer ?? '',
          from_label: fromLabel, from_trace: fromTrace.has(id) }];
      });
    }
    const runs = judgeRuns.filter((x) => x.metric_key === metricKey);
    return {
      metric: metricKey, metrics, step, steps, criterion, criteria: cs, current, labels_inform_step: definition.fromLabel !== undefined,
      example_shape: exampleSkeleton(definition),
      contextCandidates: contextStep ? lab.candidates(dataset, criterion, runs.find((x) => x.status === 'done'), isOffered) : null,
      draft: draft ?? { instruction: current.instruction, output_format: current.output_format, examples: current.examples, language: current.language },
      candidates, runs,
      parts: { calibration: split.calibration.length, held_out: split.held_out.length },
      heldOutLooks: app.holdoutLooks.count(dataset.id, metricKey),
    };
  }

  /** The draft of the form; with `step`, its examples must fit that step's schema (they are about to be saved). */
  function readDraft(req: Request, step?: StepDefinition): { draft: PromptTemplate; note: string } | { error: string } {
    const parsed = Draft.safeParse(req.body);
    if (!parsed.success) return { error: req.t('err.required') };
    let examples: PromptExample[];
    try {
      examples = ExampleList.parse(JSON.parse(parsed.data.examples || '[]')) as PromptExample[];
    } catch {
      return { error: req.t('err.examples_json') };
    }
    const problem = step ? examplesError(step, examples, req.t) : null;
    if (problem) return { error: problem };
    return { draft: { instruction: parsed.data.instruction, output_format: parsed.data.output_format, examples, language: parsed.data.language }, note: parsed.data.note };
  }

  function stepOf(datasetId: number, s: LabState): StepDefinition {
    return registry.get(datasetId, s.metric)!.steps.find((x) => x.step === s.step)!;
  }

  function load(req: Request) {
    return datasets.get(idParam(req.params.id) ?? 0);
  }

  r.get('/datasets/:id/prompt-lab', requireUser, (req, res) => {
    const dataset = load(req);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const s = state(dataset, req.user, req.query as Record<string, unknown>);
    if (!s) return sendError(req, res, 422, req.t('lab.needs'));
    sendDocument(res, PromptLabPage({ ctx: pageContext(req), dataset, s }));
  });

  r.post('/datasets/:id/prompt-lab/add-example', expert, (req, res) => {
    const dataset = load(req);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const read = readDraft(req);
    const base = state(dataset, req.user, req.body as Record<string, unknown>);
    if (!base) return sendError(req, res, 422, req.t('lab.needs'));
    if ('error' in read) return sendDocument(res, PromptLabPage({ ctx: pageContext(req), dataset, s: base, errors: { examples: read.error } }), 422);
    const picked = base.contextCandidates ? parseCandidateValue(req.body?.example) : null;
    const resp = inDataset(app, dataset.id).response(picked ? String(picked.responseId) : req.body?.example);
    if (!resp) return sendError(req, res, 404, req.t('err.not_found'));
    const id = resp.id;
    // Only items of the calibration part may become examples: the held-out part stays unseen.
    if (holdoutPart(dataset.holdout_seed, id) !== 'calibration') return sendError(req, res, 422, req.t('lab.not_calibration_item'));
    let made: PromptExample[];
    if (base.contextCandidates) {
      // Any labelled context of an offered item (see state()), not only those listed first.
      const example = picked && offeredTo(req.user, dataset.id)(id) ? lab.example(dataset, base.metric, base.criterion, id, picked.index, read.draft.language) : null;
      if (!example) return sendError(req, res, 404, req.t('err.not_found'));
      made = [example];
    } else {
      // The candidates are the items whose labels this user may read (see state()).
      if (!base.candidates.some((x) => x.response_id === id)) return sendError(req, res, 404, req.t('err.not_found'));
      const fromTrace = req.query.source === 'trace';
      made = fromTrace ? fromTraceOf(dataset.id, base, stepOf(dataset.id, base), id) : fromLabelOf(stepOf(dataset.id, base), base, id);
      if (made.length === 0) {
        const why = fromTrace ? 'lab.no_trace_example' : 'lab.label_cannot_inform';
        return sendDocument(res, PromptLabPage({ ctx: pageContext(req), dataset, s: { ...base, draft: read.draft }, errors: { examples: req.t(why) } }), 422);
      }
    }
    // One example per item's label; per context for the verify step (a relevant and an irrelevant context of one answer make a good pair).
    const same = (e: PromptExample) => e.response_id === id && (!picked || made.some((m) => m.input['context'] === e.input['context']));
    const draft = { ...read.draft, examples: [...read.draft.examples.filter((e) => !same(e)), ...made] };
    sendDocument(res, PromptLabPage({ ctx: pageContext(req), dataset, s: { ...base, draft } }));
  });

  /** The step's examples from the expert's label of an item: none when labels cannot inform the step. */
  function fromLabelOf(step: StepDefinition, s: LabState, id: number): PromptExample[] {
    const row = candidateRows.get(JSON.stringify([id]));
    const gold = calibration.goldFor(s.criterion).get(id);
    if (!step.fromLabel || !row || gold === undefined) return [];
    return step.fromLabel(toLabelled(row, gold, s.criterion));
  }

  /** The judge's own input and output for the step, from the newest goldset run's trace of the item. */
  function fromTraceOf(datasetId: number, s: LabState, step: StepDefinition, id: number): PromptExample[] {
    const hit = traced.get({ ds: datasetId, metric: s.metric, step: s.step, ids: JSON.stringify([id]) });
    const score = hit && runner.queries.score(hit.run_id, id);
    if (!score?.trace) return [];
    const example = exampleFromTrace(step, JSON.parse(score.trace) as Trace, id);
    return example ? [example] : [];
  }

  r.post('/datasets/:id/prompt-lab/run', expert, (req, res) => {
    const dataset = load(req);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const base = state(dataset, req.user, req.body as Record<string, unknown>);
    if (!base) return sendError(req, res, 422, req.t('lab.needs'));
    const read = readDraft(req, stepOf(dataset.id, base));
    if ('error' in read) return sendDocument(res, PromptLabPage({ ctx: pageContext(req), dataset, s: base, errors: { examples: read.error } }), 422);
    const saved = prompts.save(req.user!.id, dataset.id, base.metric, base.step, read.draft, read.note);
    const examples = new Set(read.draft.examples.map((e) => e.response_id).filter((x): x is number => typeof x === 'number'));
    const ids = partIds(dataset, base.criterion.id, 'calibration').filter((id) => !examples.has(id));
    try {
      const run = runner.create(req.user!.id, dataset.id, {
        name: `${base.metric} ${base.step} v${saved.version} · ${req.t('calib.part_calibration')}`, metricKey: base.metric,
        selection: { response_ids: ids, part: 'calibration' },
      });
      void runner.start(run.id);
      res.redirect(303, `/runs/${run.id}`);
    } catch (err) {
      if (err instanceof RunError) return sendDocument(res, PromptLabPage({ ctx: pageContext(req), dataset, s: { ...base, draft: read.draft }, errors: { _form: req.t(err.key, err.params) } }), 422);
      throw err;
    }
  });

  r.post('/datasets/:id/prompt-lab/final', expert, (req, res) => {
    const dataset = load(req);
    const own = dataset && inDataset(app, dataset.id);
    const source = own?.run(req.body?.run);
    if (!dataset || !own || !source) return sendError(req, res, 404, req.t('err.not_found'));
    const criterion = own.criterion(req.body?.criterion);
    if (!criterion) return sendError(req, res, 422, req.t('err.bad_request'));
    const criterionId = criterion.id;
    const recorded = JSON.parse(source.prompts) as { used?: Record<string, PromptInUse>; settings?: Record<string, string> };
    const used = recorded.used ?? {};
    const examples = exampleItems(source);
    const ids = partIds(dataset, criterionId, 'held_out').filter((id) => !examples.has(id));
    // A second look at the held-out part spends it: ask before taking it, and count every look.
    const looked = app.holdoutLooks.count(dataset.id, source.metric_key);
    if (looked > 0 && req.body?.confirm !== '1') {
      return sendDocument(res, HoldoutConfirmPage({ ctx: pageContext(req), dataset, source, criterionId, looked, fields: {
        metric: String(req.body?.metric ?? ''), step: String(req.body?.step ?? ''), criterion: String(criterionId), run: String(source.id) } }));
    }
    try {
      const run = app.db.transaction(() => {
        const created = runner.create(req.user!.id, dataset.id, { name: `${source.name.split(' · ')[0]} · ${req.t('calib.part_held_out')} ${looked + 1}`,
          metricKey: source.metric_key, prompts: used, settings: recorded.settings, selection: { response_ids: ids, part: 'held_out' } });
        app.holdoutLooks.record({ ds: dataset.id, metric: source.metric_key, criterion: criterionId, run: created.id, source: source.id, by: req.user!.id });
        return created;
      })();
      void runner.start(run.id);
      app.log.info('run.final_check', { source: source.id, run: run.id, items: ids.length, look: looked + 1 });
      res.redirect(303, `/runs/${run.id}`);
    } catch (err) {
      if (err instanceof RunError) return sendError(req, res, 422, req.t(err.key, err.params));
      throw err;
    }
  });

  r.get('/datasets/:id/compare', requireUser, (req, res) => {
    const dataset = load(req);
    const own = dataset && inDataset(app, dataset.id);
    const a = own?.run(req.query.a), b = own?.run(req.query.b), criterion = own?.criterion(req.query.criterion);
    if (!dataset || !a || !b || !criterion) return sendError(req, res, 404, req.t('err.not_found'));
    const input = (run: typeof a) => ({ criterion, run, part: 'all' as const, holdoutSeed: dataset.holdout_seed });
    const exclude = new Set([...exampleItems(a), ...exampleItems(b)]);
    if (criterion.target === 'context') {
      const cmp = contextCalibration.compare(criterion, a, b, dataset.holdout_seed, exclude);
      return sendDocument(res, ContextComparePage({ ctx: pageContext(req), dataset: { id: dataset.id, name: dataset.name }, criterion: { id: criterion.id, name: criterion.name },
        a: { id: a.id, name: a.name }, b: { id: b.id, name: b.name }, cmp }));
    }
    const cmp = comparePromptVersions(calibration.pairs(input(a)), calibration.pairs(input(b)), criterion.kind, 0.5, { exclude,
      ...(criterion.kind === 'ordinal' || criterion.kind === 'categorical' ? { categories: criterion.kind === 'ordinal'
        ? Array.from({ length: criterion.scale_max! - criterion.scale_min! + 1 }, (_, i) => String(criterion.scale_min! + i)) : criterion.options.map((o) => o.value) } : {}) });
    sendDocument(res, ComparePage({ ctx: pageContext(req), dataset, criterion, a, b, cmp }));
  });

  return r;
}

/** A candidate row as the LabelledItem a step's fromLabel reads. */
function toLabelled(row: { id: number; question: string; answer: string; ground_truth: string; retrieved_contexts: string; reference_contexts: string;
  rationale: string | null; corrected_answer: string | null }, gold: string, criterion: LabelledItem['criterion']): LabelledItem {
  return {
    response_id: row.id, gold, criterion: { kind: criterion.kind, scale_min: criterion.scale_min, scale_max: criterion.scale_max },
    rationale: row.rationale ?? '', corrected_answer: row.corrected_answer ?? '',
    item: { question: row.question, answer: row.answer, ground_truth: row.ground_truth,
      retrieved_contexts: JSON.parse(row.retrieved_contexts) as string[], reference_contexts: JSON.parse(row.reference_contexts) as string[] },
  };
}
