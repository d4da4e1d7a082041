// HTTP for samples: quick add from the dataset page, the sample page, edits and review transitions.
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { hidden, listOf, parseForm, sentValues, splitBlocks, splitTags, text, type FieldErrors } from '../http/forms.ts';
import { checkNames, LIMITS } from '../limits.ts';
import { pageContext, sendError } from '../http/page.ts';
import { redirectAfterPost, sendDocument, sendHtml, wantsFragment } from '../http/render.ts';
import { requireRole, requireUser } from '../http/security.ts';
import { idParam, labellingSummary, listState, sampleList } from '../datasets/routes.ts';
import { ConflictError, SampleError, type SampleInput } from './service.ts';
import type { SampleRow } from './queries.ts';
import { DatasetPage, QuickAddForm } from '../../views/pages/dataset.tsx';
import { formValues, SamplePage, type SampleFormValues } from '../../views/pages/sample.tsx';
import { InboxPage } from '../../views/pages/inbox.tsx';

const INBOX_PAGE = 200;

const SampleForm = z.object({
  question: text(LIMITS.question, 1),
  ground_truth: text(LIMITS.groundTruth),
  reference_contexts: listOf(splitBlocks, LIMITS.contexts, LIMITS.context),
  tags: listOf(splitTags, LIMITS.tags, LIMITS.tag, checkNames),
  source: text(LIMITS.source).default(''),
  notes: text(LIMITS.notes).default(''),
});
const EditForm = SampleForm.extend({ version: hidden(z.coerce.number().int().min(1)) });
const StatusForm = z.object({
  version: hidden(z.coerce.number().int().min(1)), action: hidden(z.enum(['submit', 'approve', 'reopen'])), comment: text(LIMITS.note).default(''),
  from: z.enum(['inbox']).optional().catch(undefined),
});

function errorsFrom(req: Request, err: SampleError): FieldErrors {
  return { [err.field]: req.t(err.key, err.params) };
}

export function sampleRoutes(app: AppContext): Router {
  const r = Router();
  const { datasets, samples, audit, log } = app;
  const expert = requireRole('expert', log);

  function renderSample(req: Request, res: Response, sample: SampleRow, extra: { values?: SampleFormValues; errors?: FieldErrors; conflict?: SampleRow } = {}, status = 200) {
    const dataset = datasets.get(sample.dataset_id)!;
    // A sample stored before the limits existed is shown cut, read-only, without its history and
    // audit trail: comparing 100,000,000-character versions would cost more than anyone can read.
    const shown = samples.queries.shown(sample.id)!;
    const oversized = shown.oversized === 1;
    sendDocument(res, SamplePage({
      ctx: pageContext(req), dataset, sample: oversized ? shown : sample, values: oversized ? formValues(shown) : extra.values ?? formValues(sample),
      history: oversized ? [] : samples.history(sample.id), audit: oversized ? [] : audit.forEntity('sample', sample.id), oversized,
      ...(extra.errors ? { errors: extra.errors } : {}), ...(extra.conflict ? { conflict: extra.conflict } : {}),
    }), status);
  }

  r.post('/datasets/:id/samples', expert, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    if (dataset.archived) return sendError(req, res, 409, req.t('err.dataset_archived'));
    const ctx = pageContext(req);
    const form = parseForm(SampleForm, req.body, req.t);
    const fail = (errors: FieldErrors) => {
      if (wantsFragment(req)) return sendHtml(res, QuickAddForm({ ctx, dataset, values: sentValues(req.body), errors }), 422);
      const state = listState({});
      sendDocument(res, DatasetPage({ ctx, dataset, list: sampleList(app, dataset.id, state), state, quickAdd: { values: sentValues(req.body), errors }, labelling: labellingSummary(app, dataset, req.user) }), 422);
    };
    // The quick-add form has no notes field: its error is said at the top of the form.
    if (!form.ok) return fail(form.errors.notes ? { ...form.errors, _form: `${req.t('field.notes')}: ${form.errors.notes}` } : form.errors);
    try {
      const added = samples.create(req.user!.id, dataset.id, form.data as SampleInput);
      if (!wantsFragment(req)) return res.redirect(303, `/datasets/${dataset.id}`);
      res.set('HX-Trigger', 'samples-changed');
      sendHtml(res, QuickAddForm({ ctx, dataset, added }));
    } catch (err) {
      if (err instanceof SampleError) return fail(errorsFrom(req, err));
      throw err;
    }
  });

  r.get('/datasets/:id/inbox', requireUser, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const { rows, total } = samples.queries.list({ datasetId: dataset.id, status: 'in_review' }, { limit: INBOX_PAGE, offset: 0 });
    sendDocument(res, InboxPage({ ctx: pageContext(req), dataset, forYou: rows.filter((x) => x.author_id !== req.user!.id),
      yours: rows.filter((x) => x.author_id === req.user!.id), total, shown: rows.length }));
  });

  r.get('/samples/:id', requireUser, (req, res) => {
    const sample = samples.queries.shown(idParam(req.params.id) ?? 0);
    if (!sample) return sendError(req, res, 404, req.t('err.not_found'));
    renderSample(req, res, sample);
  });

  r.post('/samples/:id', expert, (req, res) => {
    const sample = samples.get(idParam(req.params.id) ?? 0);
    if (!sample) return sendError(req, res, 404, req.t('err.not_found'));
    const form = parseForm(EditForm, req.body, req.t);
    const submitted = { ...formValues(sample), ...sentValues(req.body), version: Number(req.body?.version) || sample.version } as SampleFormValues;
    if (!form.ok) return renderSample(req, res, sample, { values: submitted, errors: form.errors }, 422);
    const { version, ...input } = form.data;
    try {
      samples.update(req.user!.id, sample.id, version, input as SampleInput);
      req.session.flash = req.t('flash.saved');
      redirectAfterPost(req, res, `/samples/${sample.id}`);
    } catch (err) {
      if (err instanceof ConflictError) {
        log.info('sample.conflict', { sample: sample.id, user: req.user!.id });
        // Keep what this expert typed, but against the current version, so saving again is a conscious overwrite.
        return renderSample(req, res, err.current, { values: { ...submitted, version: err.current.version }, conflict: err.current }, 409);
      }
      if (err instanceof SampleError) return renderSample(req, res, sample, { values: submitted, errors: errorsFrom(req, err) }, 422);
      throw err;
    }
  });

  r.post('/samples/:id/status', expert, (req, res) => {
    const sample = samples.get(idParam(req.params.id) ?? 0);
    if (!sample) return sendError(req, res, 404, req.t('err.not_found'));
    const form = parseForm(StatusForm, req.body, req.t);
    if (!form.ok) return renderSample(req, res, sample, { errors: { _form: req.t('err.bad_request') } }, 422);
    try {
      samples.transition(req.user!.id, sample.id, form.data.version, form.data.action, form.data.comment);
      req.session.flash = req.t(`flash.${form.data.action}`);
      // From the review inbox, a decision leads back to it: the next sample waiting is one click away.
      redirectAfterPost(req, res, form.data.from === 'inbox' ? `/datasets/${sample.dataset_id}/inbox` : `/samples/${sample.id}`);
    } catch (err) {
      if (err instanceof ConflictError) return renderSample(req, res, err.current, { conflict: err.current }, 409);
      if (err instanceof SampleError) {
        log.warn('sample.transition_refused', { sample: sample.id, user: req.user!.id, reason: err.key });
        return renderSample(req, res, sample, { errors: errorsFrom(req, err) }, 422);
      }
      throw err;
    }
  });

  return r;
}
