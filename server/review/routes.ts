// HTTP for the audit queue: the items of a run where judge and gold disagree, one item with everything
// needed to decide who was right, and the reviewer's verdict (which may correct the gold value through
// the normal, audited adjudication).
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import type { Criterion } from '../criteria/queries.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import { idParam } from '../datasets/routes.ts';
import type { FieldErrors } from '../http/forms.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendDocument } from '../http/render.ts';
import { can, requireRole, requireUser } from '../http/security.ts';
import type { RunRow } from '../judge/run-queries.ts';
import type { Trace } from '../judge/types.ts';
import { boundTrace } from '../judge/stored-trace.ts';
import { ReviewItemPage, ReviewQueuePage, type ReviewItem } from '../../views/pages/review.tsx';
import { keptComparison, neighbours, queueFrom, reviewQueries, type Queue } from './queue.ts';
import { readState, stateQuery, type QueueState } from './state.ts';
import { holdoutPart } from '../calibration/holdout.ts';
import { reviewText } from './text.ts';
import { recordDecision, verdictForm } from './decision.ts';
import { systemNames } from '../responses/queries.ts';
import { LIMITS } from '../limits.ts';
import { inDataset } from '../datasets/scoped.ts';
import { pairById, VerdictConflict } from '../calibration/service.ts';

const PAGE = 50;

// A corrected gold value of an answer: any value of the criterion (correction.ts checks it).
const VerdictForm = verdictForm(z.string({ error: 'err.invalid' }).max(LIMITS.labelValue, { error: 'review.err_gold' }).default(''));

export function parseTrace(json: string | null): Trace | null {
  if (!json) return null;
  try {
    const t = JSON.parse(json) as Partial<Trace>;
    // Cut to the limits on display too: traces stored before the limits existed may hold whole 10 MB replies.
    return boundTrace({ steps: Array.isArray(t.steps) ? t.steps : [], computation: typeof t.computation === 'string' ? t.computation : '',
      ...(t.values ? { values: t.values } : {}), ...(Array.isArray(t.explained) ? { explained: t.explained } : {}) });
  } catch {
    return null;
  }
}

export function reviewRoutes(app: AppContext): Router {
  const r = Router();
  const { datasets, runner, criteria, labels, calibration } = app;
  const q = reviewQueries(app.db);

  function loadRun(id: unknown): { run: RunRow; dataset: DatasetRow } | null {
    const run = runner.queries.byId(idParam(id) ?? 0);
    const dataset = run && datasets.get(run.dataset_id);
    return run && dataset ? { run, dataset } : null;
  }

  const responseCriteria = (datasetId: number) => criteria.forDataset(datasetId).filter((c) => c.target === 'response');

  /**
   * Every pair of the run (scores + gold; kept until the dataset's data changes), how they compare,
   * and the queue that the state's filters select, built on every view from them and the current verdicts.
   */
  function queueFor(run: RunRow, dataset: DatasetRow, state: QueueState, user: Request['user']) {
    const pairs = calibration.pairs({ criterion: state.criterion, run, part: 'all', holdoutSeed: dataset.holdout_seed });
    const comparison = keptComparison(app, { criterion: state.criterion, run, threshold: state.threshold, holdoutSeed: dataset.holdout_seed }, pairs);
    // An item is in someone's queue because its gold value disagrees with the judge: that tells the
    // gold value, so the queue holds only items whose labels the user may read (access/permissions.ts).
    const readable = app.access.readableItems(user, dataset.id);
    const part = state.part;
    const inPart = part === 'all' ? null : (id: number) => holdoutPart(dataset.holdout_seed, id) === part;
    const queue: Queue = queueFrom(comparison, pairs, calibration.verdicts(run.id, state.criterion.id), {
      verdict: state.verdict, system: state.system, tagged: state.tag ? q.tagged(dataset.id, state.tag) : null,
      inPart: readable === null ? inPart : (id) => readable.has(id) && (inPart === null || inPart(id)),
    });
    return { pairs, compared: comparison, queue };
  }

  r.get('/runs/:id/review', requireUser, (req, res) => {
    const loaded = loadRun(req.params.id);
    if (!loaded) return sendError(req, res, 404, req.t('err.not_found'));
    const { run, dataset } = loaded;
    const cs = responseCriteria(dataset.id);
    const state = readState(req.query, cs);
    const common = { ctx: pageContext(req), dataset, run, criteria: cs, state,
      systems: systemNames(app, dataset.id), tags: app.samples.queries.tags(dataset.id).map((x) => x.tag) };
    if (!state) {
      return sendDocument(res, ReviewQueuePage({ ...common, rows: [], counts: { none: 0, judge_right: 0, expert_right: 0, ambiguous: 0, any: 0 }, more: false, comparable: true }));
    }
    const { queue } = queueFor(run, dataset, state, req.user);
    const page = queue.items.slice((state.page - 1) * PAGE, state.page * PAGE);
    const questions = q.questions(page.map((x) => x.id));
    // The gold value comes from the experts' labels: hidden where the item page hides them (access/permissions.ts);
    // the queue holds only items whose labels the user may read anyway (queueFor).
    const readable = app.access.readableItems(req.user, dataset.id);
    sendDocument(res, ReviewQueuePage({ ...common, onlyLabelled: readable !== null, rows: page.map((x) => ({ ...x, question: questions.get(x.id) ?? '',
      goldHidden: readable !== null && !readable.has(x.id) })),
      counts: queue.counts, more: queue.items.length > state.page * PAGE, comparable: queue.comparable }));
  });

  /** The item, where it sits in the queue, and who may do what; null when the response is not the run's. */
  function loadItem(req: Request) {
    const loaded = loadRun(req.params.id);
    if (!loaded) return null;
    const { run, dataset } = loaded;
    const response = inDataset(app, dataset.id).response(req.params.rid);
    if (!response) return null;
    const state = readState(req.query, responseCriteria(dataset.id));
    if (!state) return null;
    const { pairs, compared, queue } = queueFor(run, dataset, state, req.user);
    // The item need not be in the queue (filtered out, or reviewed meanwhile): its neighbours are where it would sort.
    const pair = pairById(pairs, response.id);
    const comparison = pair ? compared.compare(pair) : { gap: null, disagrees: false, judgeValue: null };
    const { prev, next } = neighbours(queue.items, { id: response.id, gap: comparison.gap });
    return { run, dataset, response, state, comparison, prev: prev?.id, next: next?.id };
  }

  function itemView(loaded: NonNullable<ReturnType<typeof loadItem>>, user: Request['user']): ReviewItem {
    const { run, response, state, comparison } = loaded;
    const c: Criterion = state.criterion;
    const submitted = labels.submittedFor(response.id);
    // As on the adjudication page: whoever may still label this item sees no labels and no gold value first (access/permissions.ts).
    const hidden = !app.access.mayReadItemLabels(user, loaded.dataset.id, response.id);
    const { annotations, labels: values } = hidden ? { annotations: [], labels: [] } : submitted;
    const valueOf = new Map(values.filter((l) => l.criterion_id === c.id && l.context_index === -1).map((l) => [l.annotation_id, l.value]));
    const score = runner.queries.score(run.id, response.id);
    return {
      // The gap and the disagreement are worked out from the gold value: not shown while it is hidden.
      response, comparison: hidden ? { ...comparison, gap: null, disagrees: false } : comparison, score, trace: parseTrace(score?.trace ?? null),
      experts: annotations.map((a) => ({ email: a.annotator_email ?? '', value: valueOf.get(a.id) ?? null, rationale: a.rationale, corrected_answer: a.corrected_answer, submitted_at: a.submitted_at })),
      gold: hidden ? null : labels.gold(c, response.id, -1),
      adjudication: labels.adjudications(response.id).find((a) => a.criterion_id === c.id && a.context_index === -1),
      verdict: calibration.verdict(run.id, response.id, c.id),
      hidden,
    };
  }

  function renderItem(req: Request, res: Response, loaded: NonNullable<ReturnType<typeof loadItem>>, extra: { values?: Record<string, string>; errors?: FieldErrors } = {}, status = 200) {
    sendDocument(res, ReviewItemPage({
      ctx: pageContext(req), dataset: loaded.dataset, run: loaded.run, state: loaded.state, item: itemView(loaded, req.user), prev: loaded.prev, next: loaded.next,
      canRecord: can(req.user?.role, 'expert'), canAdjudicate: labels.canAdjudicate(loaded.dataset.id, req.user), ...extra,
    }), status);
  }

  r.get('/runs/:id/review/:rid', requireUser, (req, res) => {
    const loaded = loadItem(req);
    if (!loaded) return sendError(req, res, 404, req.t('err.not_found'));
    renderItem(req, res, loaded);
  });

  r.post('/runs/:id/review/:rid', requireRole('expert', app.log), (req, res) => {
    const loaded = loadItem(req);
    if (!loaded) return sendError(req, res, 404, req.t('err.not_found'));
    const { run, dataset, response, state } = loaded;
    const criterion = state.criterion;
    recordDecision(app, req, res, VerdictForm, {
      criterion, datasetId: dataset.id, archived: Boolean(dataset.archived), responseId: response.id, contextIndex: -1,
      correctable: criterion.kind !== 'numeric',
      setVerdict: (user, verdict, note, version) => calibration.setVerdict(user,
        { dataset_id: dataset.id, run_id: run.id, response_id: response.id, criterion_id: criterion.id, verdict, note }, version),
      isConflict: (err) => err instanceof VerdictConflict,
      conflictMessage: reviewText(req.t)('review.err_conflict'),
      render: (extra, status) => renderItem(req, res, loaded, extra, status),
      // "Save and next": the item after this one in the queue as it was before saving; the queue itself after the last one.
      after: (saveAndNext) => `/runs/${run.id}/review${!saveAndNext ? `/${response.id}` : loaded.next !== undefined ? `/${loaded.next}` : ''}?${stateQuery(state)}`,
      log: { conflict: 'review.conflict', saved: 'review.verdict', item: { run: run.id, response: response.id } },
    });
  });

  return r;
}
