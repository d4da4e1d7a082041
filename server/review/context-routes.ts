// HTTP for the audit queue of retrieved contexts: the contexts of a context_precision run where the judge's
// verdict and the experts' gold value differ, one context with the judge's reason and the experts'
// rationales, and the reviewer's verdict (which may correct the gold value through the normal, audited
// adjudication of that context).
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import { idParam } from '../datasets/routes.ts';
import { inDataset } from '../datasets/scoped.ts';
import type { FieldErrors } from '../http/forms.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendDocument } from '../http/render.ts';
import { can, requireRole, requireUser } from '../http/security.ts';
import type { RunRow } from '../judge/run-queries.ts';
import { holdoutPart } from '../calibration/holdout.ts';
import { isContextPrecisionMetric } from '../calibration/context-service.ts';
import { compareContext } from '../calibration/report-context.ts';
import { systemNames } from '../responses/queries.ts';
import { ContextItemPage, ContextQueuePage, type ContextItemModel } from '../../views/pages/review-context.tsx';
import {
  buildContextQueue, contextReviewQueries, contextStateQuery, ContextVerdictConflict, readContextState, type ContextQueueState,
} from './context-queue.ts';
import { parseTrace } from './routes.ts';
import { reviewQueries } from './queue.ts';
import { recordDecision, verdictForm } from './decision.ts';

const PAGE = 50;

// A corrected gold value of a context: relevant (1) or not (0).
const VerdictForm = verdictForm(z.enum(['', '1', '0'], { error: 'review.err_gold' }).default(''));

export function contextReviewRoutes(app: AppContext): Router {
  const r = Router();
  const { datasets, runner, criteria, labels, contextCalibration } = app;
  const q = contextReviewQueries(app.db, app.audit);
  const review = reviewQueries(app.db);

  function loadRun(id: unknown): { run: RunRow; dataset: DatasetRow } | null {
    const run = runner.queries.byId(idParam(id) ?? 0);
    const dataset = run && datasets.get(run.dataset_id);
    return run && dataset && isContextPrecisionMetric(run.metric_key) ? { run, dataset } : null;
  }

  const contextCriteria = (datasetId: number) => criteria.forDataset(datasetId).filter((c) => c.target === 'context');

  function queueFor(run: RunRow, dataset: DatasetRow, state: ContextQueueState, user: Request['user']) {
    const rows = contextCalibration.responses({ criterion: state.criterion, run, part: 'all', holdoutSeed: dataset.holdout_seed });
    // A context is queued because its gold value disagrees with the judge, which tells the gold value:
    // the queue holds only items whose labels the user may read (access/permissions.ts).
    const readable = app.access.readableItems(user, dataset.id);
    const inPart = state.part === 'all' ? null : (id: number) => holdoutPart(dataset.holdout_seed, id) === state.part;
    const queue = buildContextQueue(rows, q.verdicts(run.id, state.criterion.id), {
      verdict: state.verdict, direction: state.direction, system: state.system, tagged: state.tag ? review.tagged(dataset.id, state.tag) : null,
      inPart: readable === null ? inPart : (id) => readable.has(id) && (inPart === null || inPart(id)),
    });
    return { rows, queue };
  }

  r.get('/runs/:id/review/contexts', requireUser, (req, res) => {
    const loaded = loadRun(req.params.id);
    if (!loaded) return sendError(req, res, 404, req.t('err.not_found'));
    const { run, dataset } = loaded;
    const cs = contextCriteria(dataset.id);
    const state = readContextState(req.query, cs);
    const common = { ctx: pageContext(req), dataset, run, criteria: cs, state, systems: systemNames(app, dataset.id), tags: app.samples.queries.tags(dataset.id).map((x) => x.tag) };
    if (!state) return sendDocument(res, ContextQueuePage({ ...common, rows: [], counts: { none: 0, judge_right: 0, expert_right: 0, ambiguous: 0, any: 0 }, directions: { both: 0, judge_relevant: 0, experts_relevant: 0 }, more: false }));
    const { queue } = queueFor(run, dataset, state, req.user);
    const page = queue.items.slice((state.page - 1) * PAGE, state.page * PAGE);
    const ids = [...new Set(page.map((x) => x.responseId))];
    const texts = q.rows(ids);
    const reasons = q.reasons(run.id, ids);
    sendDocument(res, ContextQueuePage({
      ...common, counts: queue.counts, directions: queue.directions, more: queue.items.length > state.page * PAGE,
      rows: page.map((x) => ({ ...x, question: texts.get(x.responseId)?.question ?? '', context: texts.get(x.responseId)?.contexts[x.index] ?? '',
        reason: reasons.get(x.responseId)?.[x.index] ?? null })),
    }));
  });

  /** The context, where it sits in the queue; null when the response is not the run's or has no such context. */
  function loadItem(req: Request) {
    const loaded = loadRun(req.params.id);
    if (!loaded) return null;
    const { run, dataset } = loaded;
    const response = inDataset(app, dataset.id).response(req.params.rid);
    const rank = idParam(req.params.rank) ?? 0;
    if (!response) return null;
    const contexts = JSON.parse(response.retrieved_contexts) as string[];
    if (rank < 1 || rank > contexts.length) return null;
    const state = readContextState(req.query, contextCriteria(dataset.id));
    if (!state) return null;
    const { rows, queue } = queueFor(run, dataset, state, req.user);
    const index = rank - 1;
    const row = rows.find((x) => x.id === response.id);
    const at = queue.items.findIndex((x) => x.responseId === response.id && x.index === index);
    // Not in the queue (filtered out, or agreeing): its neighbours are where it would sort.
    const after = at >= 0 ? at + 1 : queue.items.findIndex((x) => x.index > index || (x.index === index && x.responseId > response.id));
    const before = at >= 0 ? at - 1 : (after < 0 ? queue.items.length : after) - 1;
    const key = (i: number) => { const x = queue.items[i]; return x ? { rid: x.responseId, rank: x.index + 1 } : undefined; };
    return { run, dataset, response, contexts, index, row, state, prev: key(before), next: after < 0 ? undefined : key(after) };
  }

  function itemModel(loaded: NonNullable<ReturnType<typeof loadItem>>, user: Request['user']): ContextItemModel {
    const { run, dataset, response, contexts, index, row, state } = loaded;
    const c = state.criterion;
    const submitted = labels.submittedFor(response.id);
    // As on the adjudication page: an expert who may still label this item does not see the others' labels first.
    const hidden = !app.access.mayReadItemLabels(user, dataset.id, response.id);
    const { annotations, labels: values } = hidden ? { annotations: [], labels: [] } : submitted;
    const valueOf = (annotationId: number, i: number) => values.find((l) => l.annotation_id === annotationId && l.criterion_id === c.id && l.context_index === i)?.value ?? null;
    const score = runner.queries.score(run.id, response.id);
    const trace = parseTrace(score?.trace ?? null);
    const verifySteps = trace ? trace.steps.filter((s) => s.step === 'verify') : [];
    const reasonOf = (i: number) => {
      const parsed = verifySteps[i]?.parsed as { reason?: unknown } | null | undefined;
      return typeof parsed?.reason === 'string' ? parsed.reason : null;
    };
    const adjudication = labels.adjudications(response.id).find((a) => a.criterion_id === c.id && a.context_index === index);
    return {
      response: { id: response.id, question: response.question, groundTruth: response.ground_truth, answer: response.answer, system: response.system },
      contexts: contexts.map((text, i) => {
        const cmp = row ? compareContext(row, i) : null;
        return { rank: i + 1, text, gold: hidden ? null : (row?.gold[i] ?? null), judge: cmp?.judge ?? (row?.verdicts?.[i] ?? null), reason: reasonOf(i) };
      }),
      index, criterion: { id: c.id, name: c.name, guidelines: c.guidelines },
      score: score ? { status: score.status, value: score.value } : null,
      computation: trace, step: verifySteps[index] ?? null,
      experts: annotations.map((a) => ({ email: a.annotator_email ?? '', value: valueOf(a.id, index), rationale: a.rationale, submitted_at: a.submitted_at })),
      adjudication: adjudication ? { by: adjudication.adjudicator_email, reason: adjudication.reason, version: adjudication.version } : null,
      verdict: q.verdict(run.id, c.id, response.id, index) ?? null,
    };
  }

  function renderItem(req: Request, res: Response, loaded: NonNullable<ReturnType<typeof loadItem>>, extra: { values?: Record<string, string>; errors?: FieldErrors } = {}, status = 200) {
    sendDocument(res, ContextItemPage({
      ctx: pageContext(req), dataset: loaded.dataset, run: loaded.run, query: contextStateQuery(loaded.state), item: itemModel(loaded, req.user),
      prev: loaded.prev, next: loaded.next, canRecord: can(req.user?.role, 'expert'), canAdjudicate: labels.canAdjudicate(loaded.dataset.id, req.user), ...extra,
    }), status);
  }

  r.get('/runs/:id/review/contexts/:rid/:rank', requireUser, (req, res) => {
    const loaded = loadItem(req);
    if (!loaded) return sendError(req, res, 404, req.t('err.not_found'));
    renderItem(req, res, loaded);
  });

  r.post('/runs/:id/review/contexts/:rid/:rank', requireRole('expert', app.log), (req, res) => {
    const loaded = loadItem(req);
    if (!loaded) return sendError(req, res, 404, req.t('err.not_found'));
    const { run, dataset, response, index, state } = loaded;
    const criterion = state.criterion;
    recordDecision(app, req, res, VerdictForm, {
      criterion, datasetId: dataset.id, archived: Boolean(dataset.archived), responseId: response.id, contextIndex: index, correctable: true,
      setVerdict: (user, verdict, note, version) => q.set(user,
        { dataset_id: dataset.id, run_id: run.id, response_id: response.id, criterion_id: criterion.id, context_index: index, verdict, note }, version),
      isConflict: (err) => err instanceof ContextVerdictConflict,
      conflictMessage: req.t('ctxr.err_conflict'),
      render: (extra, status) => renderItem(req, res, loaded, extra, status),
      after: (saveAndNext) => `/runs/${run.id}/review/contexts${!saveAndNext ? `/${response.id}/${index + 1}` : loaded.next ? `/${loaded.next.rid}/${loaded.next.rank}` : ''}?${contextStateQuery(state)}`,
      log: { conflict: 'review.context_conflict', saved: 'review.context_verdict', item: { run: run.id, response: response.id, context: index } },
    });
  });

  return r;
}
