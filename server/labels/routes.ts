// HTTP for the labelling workspace: the next item, drafts, submission; plain pages and htmx fragments.
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendDocument, sendHtml, sendHtmlText, wantsFragment } from '../http/render.ts';
import { requireUser } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import type { LabelTarget } from '../responses/queries.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import { LabelConflict, LabelError, type HandedOut } from './service.ts';
import { pageNumber } from '../http/forms.ts';
import { LabelPage, Workspace } from '../../views/pages/label.tsx';
import { HistoryList, LabelStart, type HistoryItem } from '../../views/pages/label-history.tsx';
import type { HistoryPage, HistoryState } from './history.ts';
import { optionLabel } from '../criteria/values.ts';
import type { Html } from '../../views/jsx-runtime.ts';
import { LIMITS } from '../limits.ts';
import { admitLabeller, buildItem, fragmentAnswer, handedWorkspace, nextActions, readAnnotation, saveAndNext, type Shown } from './save-and-next.ts';
import type { LabelThread } from './label-thread-client.ts';

const RECENT = 5;
const HISTORY_PAGE = 50;
const NO_FILTER = { q: '', state: '', criterionId: null, value: '' } as const;

/** The dataset of a labelling request, if it exists, and whether the user may label in it. */
interface LabellingAccess { dataset: DatasetRow | undefined; allowed: boolean }
const NO_ACCESS: LabellingAccess = { dataset: undefined, allowed: false };

const HistoryQuery = z.object({
  q: z.string().trim().max(LIMITS.search).catch(''),
  state: z.enum(['draft', 'submitted']).or(z.literal('')).catch(''),
  value: z.string().max(220).regex(/^\d{1,15}:.{1,200}$/).or(z.literal('')).catch(''),
});

/** The history list's filters: text, state, and one response-level criterion's value ("criterionId:value"). */
function readHistoryFilter(query: unknown) {
  const q = HistoryQuery.parse(query ?? {});
  const [cid, ...rest] = q.value ? q.value.split(':') : [];
  return {
    raw: q,
    filter: { q: q.q, state: q.state as HistoryState | '', criterionId: cid ? Number(cid) : null, value: rest.join(':') },
  };
}

/** Save-and-next as htmx sends it, which the labelling thread makes when there is one (app.ts skips the group join for it then). */
export function madeInLabelThread(req: Request): boolean {
  return req.method === 'POST' && wantsFragment(req) && /^\/responses\/\d+\/label$/.test(req.path);
}

export function labelRoutes(app: AppContext, thread?: LabelThread): Router {
  const r = Router();
  const { labels, criteria } = app;
  function render(req: Request, res: Response, dataset: DatasetRow, node: Html, status = 200) {
    if (wantsFragment(req)) return sendHtml(res, node, status);
    sendDocument(res, LabelPage({ ctx: pageContext(req), dataset, children: node }), status);
  }

  /** The dataset and whether this user may label in it: reads only, so that it can run in a read transaction. */
  function labellingAccess(req: Request, datasetId: number | undefined): LabellingAccess {
    return datasetId === undefined ? NO_ACCESS : labels.labellingAccess(datasetId, req.user);
  }

  /** The dataset when this user may label in it; otherwise answers the refusal (outside any transaction: the answer touches the session). */
  function admit(req: Request, res: Response, access: LabellingAccess): DatasetRow | null {
    const admitted = admitLabeller(app, access, req.path, req.user);
    if ('refused' in admitted) { sendError(req, res, admitted.refused, req.t(admitted.message)); return null; }
    return admitted.dataset;
  }

  /** The dataset of a response, when this user may label in it; answers the refusal itself. */
  function labellingDataset(req: Request, res: Response, datasetId: number | undefined): DatasetRow | null {
    return admit(req, res, labellingAccess(req, datasetId));
  }

  /** Loads the response as the workspace shows it and checks that this user may label it; answers the refusal itself. */
  function load(req: Request, res: Response): { dataset: DatasetRow; shown: Shown } | null {
    const shown = labels.shown(idParam(req.params.rid) ?? 0, req.user!.id);
    const dataset = labellingDataset(req, res, shown?.response.dataset_id);
    return dataset ? { dataset, shown: shown! } : null;
  }

  /** As load, for saving: the response without its texts, read with its dataset and the user's standing. */
  function loadTarget(req: Request, res: Response): { dataset: DatasetRow; target: LabelTarget } | null {
    const found = labels.targetAccess(idParam(req.params.rid) ?? 0, req.user);
    const dataset = admit(req, res, found ?? NO_ACCESS);
    return dataset ? { dataset, target: found!.target } : null;
  }

  /** Answers with the item handed out (see labels.handOut), or that the queue is done. */
  function showNext(req: Request, res: Response, dataset: DatasetRow, handed: HandedOut | null) {
    if (!wantsFragment(req)) return res.redirect(303, handed === null ? `/datasets/${dataset.id}/label` : `/responses/${handed.responseId}/label`);
    if (handed !== null) res.set('HX-Push-Url', `/responses/${handed.responseId}/label`);
    sendHtml(res, handedWorkspace(app, pageContext(req), dataset, handed));
  }

  // A GET shows and never writes (a link from another site must not reserve items in someone's name):
  // the start page says what waits; reserving the next item is the POST below.
  r.get('/datasets/:id/label', requireUser, (req, res) => {
    const dataset = labellingDataset(req, res, idParam(req.params.id) ?? undefined);
    if (!dataset) return;
    const ctx = pageContext(req);
    const candidate = labels.peekNext(dataset.id, req.user!.id, dataset.overlap);
    const recent = labels.history.page(req.user!.id, dataset.id, NO_FILTER, RECENT, 0);
    sendDocument(res, LabelPage({ ctx, dataset, children: LabelStart({ ctx, dataset, candidate, next: nextActions(app, dataset, req.user!),
      recent: historyRows(dataset, recent) }) }));
  });

  /** Reserves the next item (after `after` when skipping) and shows it; the keyboard's S and the start button post here. */
  r.post('/datasets/:id/label/next', requireUser, (req, res) => {
    const dataset = labellingDataset(req, res, idParam(req.params.id) ?? undefined);
    if (!dataset) return;
    const after = idParam(typeof req.body?.after === 'string' ? req.body.after : undefined) ?? 0;
    showNext(req, res, dataset, labels.handOut(dataset.id, req.user!.id, dataset.overlap, after));
  });

  r.get('/responses/:rid/label', requireUser, (req, res) => {
    const loaded = load(req, res);
    if (!loaded) return;
    const { dataset, shown } = loaded;
    const item = buildItem(dataset, criteria.forDatasetRow(dataset), shown, labels.mine(shown.response.id, req.user!.id));
    render(req, res, dataset, Workspace({ ctx: pageContext(req), item }));
  });

  // B and N: the previous / next item in this expert's own history (not the browser's), computed when asked.
  for (const direction of ['prev', 'next'] as const) {
    r.get(`/responses/:rid/label/${direction}`, requireUser, (req, res) => {
      const loaded = load(req, res);
      if (!loaded) return;
      const { dataset, shown: here } = loaded;
      const me = req.user!.id;
      const target = direction === 'prev' ? labels.history.previous(me, dataset.id, here.response.id) : labels.history.next(me, dataset.id, here.response.id);
      if (target !== null && !wantsFragment(req)) return res.redirect(303, `/responses/${target}/label`);
      const shown = target === null ? here : labels.shown(target, me)!;
      if (target !== null) res.set('HX-Push-Url', `/responses/${target}/label`);
      const item = buildItem(dataset, criteria.forDatasetRow(dataset), shown, labels.mine(shown.response.id, me));
      render(req, res, dataset, Workspace({ ctx: pageContext(req), item, ...(target === null ? { edge: direction === 'prev' ? 'first' : 'last' } as const : {}) }));
    });
  }

  r.get('/datasets/:id/label/history', requireUser, (req, res) => {
    const dataset = labellingDataset(req, res, idParam(req.params.id) ?? undefined);
    if (!dataset) return;
    const filter = readHistoryFilter(req.query);
    const page = pageNumber.parse(req.query.page);
    const found = labels.history.page(req.user!.id, dataset.id, filter.filter, HISTORY_PAGE, (page - 1) * HISTORY_PAGE);
    const ctx = pageContext(req);
    sendDocument(res, LabelPage({ ctx, dataset, children: HistoryList({ ctx, dataset, rows: historyRows(dataset, found), total: found.total,
      page, pageSize: HISTORY_PAGE, filter: filter.raw, criteria: criteria.forDatasetRow(dataset).filter((c) => c.target === 'response' && c.kind !== 'numeric') }) }));
  });

  /** History rows with the expert's response-level values as the option labels they picked. */
  function historyRows(dataset: DatasetRow, found: HistoryPage): HistoryItem[] {
    const cs = criteria.forDatasetRow(dataset).filter((c) => c.target === 'response');
    return found.rows.map((row) => ({ ...row, values: cs.flatMap((c) => {
      const v = found.values.get(row.annotation_id)?.get(c.id);
      return v === undefined ? [] : [{ criterion: c.name, value: optionLabel(c, v) ?? v }];
    }) }));
  }

  // htmx's save-and-next is made in the labelling thread when there is one (label-thread.ts): its SQL
  // and rendering on the other core, while this thread goes on with the next request's middleware.
  // A plain form (answered with a redirect or a whole page), or no thread, makes it here.
  r.post('/responses/:rid/label', requireUser, async (req, res) => {
    const responseId = idParam(req.params.rid) ?? 0;
    if (wantsFragment(req)) {
      const ctx = pageContext(req);
      const answer = (thread && await thread.save({ responseId, body: req.body, user: req.user!, locale: ctx.locale, csrfToken: ctx.csrfToken, path: ctx.path, url: ctx.url }))
        ?? fragmentAnswer(saveAndNext(app, ctx, responseId, req.body));
      if ('refused' in answer) return sendError(req, res, answer.refused, req.t(answer.message));
      if (answer.next !== undefined) res.set('HX-Push-Url', `/responses/${answer.next}/label`);
      return sendHtmlText(res, answer.html, answer.status);
    }
    const outcome = saveAndNext(app, pageContext(req), responseId, req.body);
    if ('refused' in outcome) return sendError(req, res, outcome.refused, req.t(outcome.message));
    if (outcome.status !== 200) return render(req, res, outcome.dataset, outcome.workspace, outcome.status);
    res.redirect(303, outcome.next === null ? `/datasets/${outcome.dataset.id}/label` : `/responses/${outcome.next}/label`);
  });

  r.post('/responses/:rid/draft', requireUser, (req, res) => {
    const loaded = loadTarget(req, res);
    if (!loaded) return;
    const { dataset, target } = loaded;
    const { input } = readAnnotation(req.body);
    try {
      labels.saveDraft(req.user!, target, criteria.forDatasetRow(dataset), input);
      res.type('text').send(req.t('label.draft_saved'));
    } catch (err) {
      if (err instanceof LabelError || err instanceof LabelConflict) return res.status(422).type('text').send(req.t('label.draft_failed'));
      throw err;
    }
  });

  return r;
}
