// HTTP for criteria and for the labelling assignment (overlap, labellers, adjudicators) of a dataset.
import { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { hidden, parseForm, sentValues, text } from '../http/forms.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendDocument } from '../http/render.ts';
import { requireRole, requireUser } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import { CriterionConflict, CriterionError } from './service.ts';
import { AssignmentConflict } from '../labels/service.ts';
import { LIMITS } from '../limits.ts';
import type { CriterionOption } from './values.ts';
import { AssignmentPage, CriteriaPage } from '../../views/pages/criteria.tsx';

/** "value | label" per line, or just a label that is its own value. */
export function parseOptions(textValue: string): CriterionOption[] {
  return textValue.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).map((line) => {
    const [value = '', ...rest] = line.split('|');
    const label = rest.join('|').trim();
    return { value: value.trim(), label: label || value.trim() };
  });
}

/** The options field holds one option per line: as many lines as options are allowed, each value | label. */
const OPTIONS_TEXT = LIMITS.options * (2 * LIMITS.optionText + 4);

const optionalInt = z.string().trim().transform((s) => (s === '' ? null : Number(s))).pipe(z.number().int({ error: 'err.invalid' }).nullable());

const CreateForm = z.object({
  name: text(LIMITS.criterionName, 1).refine((s) => /^[\p{L}\p{N}_-]+$/u.test(s), { error: 'err.criterion_name' }),
  kind: z.enum(['binary', 'categorical', 'ordinal', 'numeric'], { error: 'err.invalid' }),
  target: z.enum(['response', 'context'], { error: 'err.invalid' }),
  options: text(OPTIONS_TEXT).transform(parseOptions),
  scale_min: optionalInt.default(null),
  scale_max: optionalInt.default(null),
  guidelines: text(LIMITS.guidelines),
}).refine((c) => c.target === 'response' || c.kind === 'binary', { error: 'err.context_binary', path: ['target'] });

const UpdateForm = z.object({
  guidelines: text(LIMITS.guidelines),
  options: z.string().max(OPTIONS_TEXT, { error: 'err.too_long' }).optional().transform((s) => (s === undefined ? undefined : parseOptions(s))),
  archived: z.literal('1').optional(),
  version: hidden(z.coerce.number({ error: 'err.bad_request' }).int().min(1)),
});

const AssignmentForm = z.object({
  overlap: z.coerce.number({ error: 'err.overlap' }).int({ error: 'err.overlap' }).min(1, { error: 'err.overlap' }).max(5, { error: 'err.overlap' }),
  label: z.union([z.string(), z.array(z.string())]).optional().transform((v) => (v === undefined ? [] : [v].flat()).map(Number)),
  adjudicate: z.union([z.string(), z.array(z.string())]).optional().transform((v) => (v === undefined ? [] : [v].flat()).map(Number)),
  version: hidden(z.coerce.number({ error: 'err.bad_request' }).int().min(1)),
});

export function criterionRoutes(app: AppContext): Router {
  const r = Router();
  const expert = requireRole('expert', app.log);
  const admin = requireRole('admin', app.log);
  const { datasets, criteria, labels, users } = app;

  r.get('/datasets/:id/criteria', requireUser, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    sendDocument(res, CriteriaPage({ ctx: pageContext(req), dataset, criteria: criteria.queries.allForDataset(dataset.id) }));
  });

  r.post('/datasets/:id/criteria', expert, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const rerender = (errors: Record<string, string>) =>
      sendDocument(res, CriteriaPage({ ctx: pageContext(req), dataset, criteria: criteria.queries.allForDataset(dataset.id), values: sentValues(req.body), errors }), 422);
    const form = parseForm(CreateForm, req.body, req.t);
    if (!form.ok) return rerender(form.errors);
    try {
      criteria.create(req.user!.id, dataset.id, form.data);
      res.redirect(303, `/datasets/${dataset.id}/criteria`);
    } catch (err) {
      if (err instanceof CriterionError) return rerender({ [err.field]: req.t(err.key, err.params) });
      throw err;
    }
  });

  r.post('/criteria/:cid', expert, (req, res) => {
    const criterion = criteria.get(idParam(req.params.cid) ?? 0);
    if (!criterion) return sendError(req, res, 404, req.t('err.not_found'));
    const form = parseForm(UpdateForm, req.body, req.t);
    const dataset = datasets.get(criterion.dataset_id)!;
    // Why the change was refused goes into this criterion's form (not the new-criterion form below the list).
    const typed = { options: typeof req.body?.options === 'string' ? req.body.options : undefined, guidelines: String(req.body?.guidelines ?? ''), archived: req.body?.archived === '1' };
    const rerender = (error: string, status = 422) => sendDocument(res, CriteriaPage({ ctx: pageContext(req), dataset, criteria: criteria.queries.allForDataset(dataset.id),
      refused: { criterionId: criterion.id, error, typed: status === 409 ? undefined : typed } }), status);
    if (!form.ok) return rerender(Object.values(form.errors).join(' '));
    try {
      criteria.update(req.user!.id, criterion.id, form.data.version,
        { guidelines: form.data.guidelines, options: form.data.options, archived: form.data.archived === '1' });
      req.session.flash = req.t('flash.saved');
      res.redirect(303, `/datasets/${dataset.id}/criteria`);
    } catch (err) {
      if (err instanceof CriterionConflict) {
        app.log.info('criterion.conflict', { criterion: criterion.id, user: req.user!.id });
        // The page shows what the other person saved; what this person typed is quoted so nothing is lost.
        return rerender(req.t('err.criterion_conflict', { name: criterion.name, guidelines: form.data.guidelines }), 409);
      }
      if (err instanceof CriterionError) return rerender(req.t(err.key, err.params));
      throw err;
    }
  });

  r.get('/datasets/:id/assignment', admin, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    sendDocument(res, AssignmentPage({ ctx: pageContext(req), dataset, users: users.queries.all(), members: labels.members(dataset.id) }));
  });

  r.post('/datasets/:id/assignment', admin, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const form = parseForm(AssignmentForm, req.body, req.t);
    if (!form.ok) {
      return sendDocument(res, AssignmentPage({ ctx: pageContext(req), dataset, users: users.queries.all(), members: labels.members(dataset.id), errors: form.errors }), 422);
    }
    const eligible = users.queries.all().filter((u) => u.role !== 'viewer' && !u.disabled);
    const members = eligible.map((u) => ({ userId: u.id, label: form.data.label.includes(u.id), adjudicate: form.data.adjudicate.includes(u.id) }));
    try {
      labels.setAssignment(req.user!.id, dataset.id, form.data.version, form.data.overlap, members);
    } catch (err) {
      if (!(err instanceof AssignmentConflict)) throw err;
      app.log.info('assignment.conflict', { dataset: dataset.id, user: req.user!.id });
      const current = datasets.get(dataset.id)!;
      return sendDocument(res, AssignmentPage({ ctx: pageContext(req), dataset: current, users: users.queries.all(), members: labels.members(dataset.id),
        errors: { _form: req.t('err.assignment_conflict') } }), 409);
    }
    req.session.flash = req.t('flash.saved');
    res.redirect(303, `/datasets/${dataset.id}`);
  });

  return r;
}
