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
import type { PromptInUse, PromptTemplate } from '../judge/types.ts';
import { RunError } from '../judge/runner.ts';
import { holdoutPart } from './holdout.ts';
import { comparePromptVersions } from './compare.ts';
import { exampleItems } from './service.ts';
import { ComparePage, PromptLabPage, type ExampleCandidate, type LabState } from '../../views/pages/prompt-lab.tsx';
import { HoldoutConfirmPage } from '../../views/pages/holdout-looks.tsx';

const ExampleList = z.array(z.object({ input: z.record(z.string(), z.unknown()), output: z.unknown(), response_id: z.number().int().optional() }).loose());
const Draft = z.object({
  instruction: z.string().trim().min(1).max(50_000),
  output_format: z.string().max(20_000).default(''),
  examples: z.string().max(500_000).default('[]'),
  language: z.enum(['en', 'zh']),
  note: z.string().trim().max(500).default(''),
});

export function labRoutes(app: AppContext): Router {
  const r = Router();
  const expert = requireRole('expert', app.log);
  const { datasets, registry, prompts, criteria, calibration, runner, responses } = app;

  function llmMetrics(datasetId: number): string[] {
    return [...registry.builtinKeys(), ...registry.custom(datasetId).map((m) => m.key)].filter((k) => registry.get(datasetId, k)?.kind === 'llm');
  }

  /** The candidates for few-shot examples: their question, answer and the first expert note, in one query. */
  const candidateRows = app.db.prepare<[string], { id: number; question: string; answer: string; rationale: string | null; corrected_answer: string | null }>(`
    SELECT r.id, s.question, r.answer, f.rationale, f.corrected_answer FROM response r JOIN sample s ON s.id = r.sample_id
    LEFT JOIN annotation f ON f.id = (SELECT a.id FROM annotation a WHERE a.response_id = r.id AND a.state = 'submitted'
      AND (a.rationale <> '' OR a.corrected_answer <> '') ORDER BY a.submitted_at LIMIT 1)
    WHERE r.id IN (SELECT value FROM json_each(?))`);

  /** Items of each holdout part that have a gold value for the criterion, in id order. */
  function parts(dataset: DatasetRow, gold: ReadonlyMap<number, string>): Record<'calibration' | 'held_out', number[]> {
    const out = { calibration: [] as number[], held_out: [] as number[] };
    for (const id of gold.keys()) out[holdoutPart(dataset.holdout_seed, id)].push(id);
    out.calibration.sort((a, b) => a - b);
    out.held_out.sort((a, b) => a - b);
    return out;
  }

  const partIds = (dataset: DatasetRow, criterionId: number, part: 'calibration' | 'held_out'): number[] =>
    parts(dataset, calibration.goldFor(criteria.get(criterionId)!))[part];

  function state(dataset: DatasetRow, q: Record<string, unknown>, draft?: PromptTemplate): LabState | null {
    const metrics = llmMetrics(dataset.id);
    const metricKey = metrics.includes(String(q.metric)) ? String(q.metric) : metrics[0];
    const cs = criteria.forDataset(dataset.id).filter((c) => c.target === 'response');
    const criterion = cs.find((c) => c.id === Number(q.criterion)) ?? cs[0];
    if (!metricKey || !criterion) return null;
    const metric = registry.get(dataset.id, metricKey)!;
    const steps = metric.steps.map((s) => s.step);
    const step = steps.includes(String(q.step)) ? String(q.step) : steps[0]!;
    const current = prompts.resolve(dataset.id, metric, dataset.language)[step]!;
    const gold = calibration.goldFor(criterion);
    const split = parts(dataset, gold);
    const shown = split.calibration.slice(0, 40);
    const rows = new Map(candidateRows.all(JSON.stringify(shown)).map((r) => [r.id, r]));
    const candidates: ExampleCandidate[] = shown.flatMap((id) => {
      const r = rows.get(id);
      return r ? [{ response_id: id, question: r.question, answer: r.answer, gold: gold.get(id)!, rationale: r.rationale ?? '', corrected_answer: r.corrected_answer ?? '' }] : [];
    });
    return {
      metric: metricKey, metrics, step, steps, criterion, criteria: cs, current,
      draft: draft ?? { instruction: current.instruction, output_format: current.output_format, examples: current.examples, language: current.language },
      candidates, runs: runner.queries.forDataset(dataset.id).filter((x) => x.metric_key === metricKey && x.source === 'goldset'),
      parts: { calibration: split.calibration.length, held_out: split.held_out.length },
      heldOutLooks: app.holdoutLooks.count(dataset.id, metricKey),
    };
  }

  function readDraft(req: Request): { draft: PromptTemplate; note: string } | { error: string } {
    const parsed = Draft.safeParse(req.body);
    if (!parsed.success) return { error: req.t('err.required') };
    try {
      const examples = ExampleList.parse(JSON.parse(parsed.data.examples || '[]')) as PromptTemplate['examples'];
      return { draft: { instruction: parsed.data.instruction, output_format: parsed.data.output_format, examples, language: parsed.data.language }, note: parsed.data.note };
    } catch {
      return { error: req.t('err.examples_json') };
    }
  }

  function load(req: Request) {
    return datasets.get(idParam(req.params.id) ?? 0);
  }

  r.get('/datasets/:id/prompt-lab', requireUser, (req, res) => {
    const dataset = load(req);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const s = state(dataset, req.query as Record<string, unknown>);
    if (!s) return sendError(req, res, 422, req.t('lab.needs'));
    sendDocument(res, PromptLabPage({ ctx: pageContext(req), dataset, s }));
  });

  r.post('/datasets/:id/prompt-lab/add-example', expert, (req, res) => {
    const dataset = load(req);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const read = readDraft(req);
    const base = state(dataset, req.body as Record<string, unknown>);
    if (!base) return sendError(req, res, 422, req.t('lab.needs'));
    if ('error' in read) return sendDocument(res, PromptLabPage({ ctx: pageContext(req), dataset, s: base, errors: { examples: read.error } }), 422);
    const id = Number(req.body?.example);
    // Only items of the calibration part may become examples: the held-out part stays unseen.
    if (holdoutPart(dataset.holdout_seed, id) !== 'calibration') return sendError(req, res, 422, req.t('lab.not_calibration_item'));
    const c = base.candidates.find((x) => x.response_id === id);
    const resp = responses.byId(id);
    if (!c || !resp) return sendError(req, res, 404, req.t('err.not_found'));
    const example = {
      input: { question: resp.question, answer: resp.answer, ground_truth: resp.ground_truth, contexts: JSON.parse(resp.retrieved_contexts) as string[] },
      output: { value: c.gold, reason: c.rationale, ...(c.corrected_answer ? { corrected_answer: c.corrected_answer } : {}) },
      response_id: id,
    };
    const draft = { ...read.draft, examples: [...read.draft.examples.filter((e) => (e as { response_id?: number }).response_id !== id), example] };
    sendDocument(res, PromptLabPage({ ctx: pageContext(req), dataset, s: { ...base, draft } }));
  });

  r.post('/datasets/:id/prompt-lab/run', expert, (req, res) => {
    const dataset = load(req);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const base = state(dataset, req.body as Record<string, unknown>);
    if (!base) return sendError(req, res, 422, req.t('lab.needs'));
    const read = readDraft(req);
    if ('error' in read) return sendDocument(res, PromptLabPage({ ctx: pageContext(req), dataset, s: base, errors: { examples: read.error } }), 422);
    const saved = prompts.save(req.user!.id, dataset.id, base.metric, base.step, read.draft, read.note);
    const examples = new Set(read.draft.examples.map((e) => (e as { response_id?: number }).response_id).filter((x): x is number => typeof x === 'number'));
    const ids = partIds(dataset, base.criterion.id, 'calibration').filter((id) => !examples.has(id));
    try {
      const run = runner.create(req.user!.id, dataset.id, {
        name: `${base.metric} ${base.step} v${saved.version} · ${req.t('calib.part_calibration')}`, metricKey: base.metric,
        selection: { response_ids: ids, part: 'calibration' },
      });
      void runner.start(run.id);
      res.redirect(303, `/runs/${run.id}`);
    } catch (err) {
      if (err instanceof RunError) return sendDocument(res, PromptLabPage({ ctx: pageContext(req), dataset, s: { ...base, draft: read.draft }, errors: { _form: req.t(`err.run_${err.code}`) } }), 422);
      throw err;
    }
  });

  r.post('/datasets/:id/prompt-lab/final', expert, (req, res) => {
    const dataset = load(req);
    const source = runner.queries.byId(idParam(String(req.body?.run)) ?? 0);
    if (!dataset || !source || source.dataset_id !== dataset.id) return sendError(req, res, 404, req.t('err.not_found'));
    const criterionId = Number(req.body?.criterion);
    if (!criteria.get(criterionId)) return sendError(req, res, 422, req.t('err.bad_request'));
    const used = (JSON.parse(source.prompts) as { used?: Record<string, PromptInUse> }).used ?? {};
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
          metricKey: source.metric_key, prompts: used, selection: { response_ids: ids, part: 'held_out' } });
        app.holdoutLooks.record({ ds: dataset.id, metric: source.metric_key, criterion: criterionId, run: created.id, source: source.id, by: req.user!.id });
        return created;
      })();
      void runner.start(run.id);
      app.log.info('run.final_check', { source: source.id, run: run.id, items: ids.length, look: looked + 1 });
      res.redirect(303, `/runs/${run.id}`);
    } catch (err) {
      if (err instanceof RunError) return sendError(req, res, 422, req.t(`err.run_${err.code}`));
      throw err;
    }
  });

  r.get('/datasets/:id/compare', requireUser, (req, res) => {
    const dataset = load(req);
    const a = runner.queries.byId(idParam(String(req.query.a)) ?? 0);
    const b = runner.queries.byId(idParam(String(req.query.b)) ?? 0);
    const criterion = criteria.get(Number(req.query.criterion));
    if (!dataset || !a || !b || !criterion || a.dataset_id !== dataset.id || b.dataset_id !== dataset.id) return sendError(req, res, 404, req.t('err.not_found'));
    const input = (run: typeof a) => ({ criterion, run, part: 'all' as const, holdoutSeed: dataset.holdout_seed });
    const exclude = new Set([...exampleItems(a), ...exampleItems(b)]);
    const cmp = comparePromptVersions(calibration.pairs(input(a)), calibration.pairs(input(b)), criterion.kind, 0.5, { exclude,
      ...(criterion.kind === 'ordinal' || criterion.kind === 'categorical' ? { categories: criterion.kind === 'ordinal'
        ? Array.from({ length: criterion.scale_max! - criterion.scale_min! + 1 }, (_, i) => String(criterion.scale_min! + i)) : criterion.options.map((o) => o.value) } : {}) });
    sendDocument(res, ComparePage({ ctx: pageContext(req), dataset, criterion, a, b, cmp }));
  });

  return r;
}
