// HTTP for releases: the list and the form that makes one, a release's page, its downloads, the
// changes against another release or the dataset now, and deleting one (admins only, audited).
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { parseForm, sentValues, text } from '../http/forms.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendDocument } from '../http/render.ts';
import { requireRole, requireUser } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import { CONTENT_TYPES, EXPORT_FORMATS, EXTENSIONS } from '../importexport/export.ts';
import { ReleaseError, evalSetOf, type ReleaseRow } from './service.ts';
import { ReleaseExportError, checkReleaseExport, etagMatches, releaseEtag, releaseExportRefusal, writeReleaseExport } from './export.ts';
import { diffReleases, type DiffInput } from './diff.ts';
import type { StoredRecord } from './queries.ts';
import { DiffPage, ReleasePage, ReleasesPage, type ReleaseSummary } from '../../views/pages/releases.tsx';
import { LIMITS } from '../limits.ts';

const ReleaseForm = z.object({ tag: text(LIMITS.releaseTag, 1), note: text(LIMITS.releaseNote), responses: z.literal('1').optional().catch(undefined) });
export const ReleaseExportQuery = z.object({
  format: z.enum(EXPORT_FORMATS).catch('ragas-jsonl'),
  responses: z.enum(['1', 'true']).optional().catch(undefined),
});

export function summary(r: ReleaseRow): ReleaseSummary {
  return { tag: r.tag, hash: r.hash, samples: r.n_samples, responses: r.n_responses, withResponses: r.with_responses === 1, author: r.author_email,
    createdAt: r.created_at, note: r.note };
}

export const storedAsDiff = (r: StoredRecord): DiffInput => ({ kind: r.kind, sampleId: r.sample_id, responseId: r.response_id, key: r.item_key, body: r.body });

/** The download of one export of a release: the same bytes every time, so a conditional request is answered 304. */
export async function sendReleaseExport(app: AppContext, req: Request, res: Response, release: ReleaseRow,
  refuse: (status: number, reason: string, message: string) => void): Promise<void> {
  // The refusals in the asker's language (req.t: the page's, or the API's apiLocale).
  const q = ReleaseExportQuery.parse(req.query);
  const responses = q.responses !== undefined;
  // A release with responses carries the gold values, goldset JSONL every gold label: only for whoever
  // may read all of them (access/permissions.ts), as the dataset's own exports.
  if ((responses || q.format === 'goldset-jsonl') && !app.access.mayReadAllLabels(req.user, release.dataset_id)) {
    app.log.warn('authz.refused', { path: req.path, user: req.user?.id ?? null, reason: 'labels are blind to this labeller' });
    return refuse(403, 'labels_blind', req.t('export.labels_blind'));
  }
  try {
    checkReleaseExport(release, q.format, responses);
  } catch (err) {
    if (err instanceof ReleaseExportError) return refuse(422, err.reason, releaseExportRefusal(err, release, req.t));
    throw err;
  }
  const etag = releaseEtag(release, q.format, responses);
  res.set('ETag', etag).set('Cache-Control', 'private, no-cache').set('X-Goldset-Release-Hash', release.hash);
  if (etagMatches(req.get('If-None-Match'), etag)) return void res.status(304).end();
  const name = `${release.dataset_name}-${release.tag}${responses ? '-responses' : ''}.${EXTENSIONS[q.format]}`.replace(/[^\p{L}\p{N}._-]+/gu, '_');
  res.type(CONTENT_TYPES[q.format]).attachment(name);
  try {
    await writeReleaseExport(app.releases, release, q.format, responses, res);
  } catch (err) {
    // Past the headers a failure (or a client that went away) can only cut the download short.
    app.log.warn('release.export_failed', { release: release.id, message: (err as Error).message });
    res.destroy();
  }
}

export function releaseRoutes(app: AppContext): Router {
  const r = Router();
  const expert = requireRole('expert', app.log);
  const admin = requireRole('admin', app.log);
  const { datasets, releases } = app;

  function load(req: Request, res: Response): { dataset: DatasetRow; release: ReleaseRow } | null {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    const release = dataset && releases.byTag(dataset.id, String(req.params.tag));
    if (!dataset || !release) { sendError(req, res, 404, req.t('err.not_found')); return null; }
    return { dataset, release };
  }

  const approvedCount = app.db.prepare<[number], number>("SELECT count(*) FROM sample WHERE dataset_id = ? AND status = 'approved'").pluck();

  function listPage(req: Request, dataset: DatasetRow, extra: { values?: { tag?: string; note?: string; responses?: boolean }; errors?: Record<string, string> } = {}) {
    return ReleasesPage({ ctx: pageContext(req), dataset, releases: releases.list(dataset.id).map(summary), approved: approvedCount.get(dataset.id) as number,
      canCreate: req.user?.role === 'admin' || req.user?.role === 'expert', ...extra });
  }

  r.get('/datasets/:id/releases', requireUser, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    sendDocument(res, listPage(req, dataset));
  });

  r.post('/datasets/:id/releases', expert, (req, res) => {
    const dataset = datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    const body = sentValues(req.body);
    const values = { tag: body.tag ?? '', note: body.note ?? '', responses: body.responses === '1' };
    const form = parseForm(ReleaseForm, req.body, req.t);
    if (!form.ok) return sendDocument(res, listPage(req, dataset, { values, errors: form.errors }), 422);
    try {
      const release = releases.create({ id: req.user!.id, email: req.user!.email }, dataset, { tag: form.data.tag, note: form.data.note, responses: form.data.responses === '1' });
      app.log.info('release.created', { dataset: dataset.id, release: release.id, user: req.user!.id });
      req.session.flash = req.t('release.created_flash', { tag: release.tag, samples: release.n_samples, responses: release.n_responses });
      res.redirect(303, `/datasets/${dataset.id}/releases/${encodeURIComponent(release.tag)}`);
    } catch (err) {
      if (err instanceof ReleaseError) return sendDocument(res, listPage(req, dataset, { values, errors: { [err.field]: req.t(err.key, err.params) } }), 422);
      throw err;
    }
  });

  function releasePage(req: Request, dataset: DatasetRow, release: ReleaseRow, errors?: Record<string, string>) {
    const runs = app.runner.queries.forDataset(dataset.id).filter((run) => evalSetOf(run.selection)?.id === release.id)
      .map((run) => ({ id: run.id, name: run.name, metric: run.metric_key, status: run.status }));
    return ReleasePage({ ctx: pageContext(req), dataset, release: summary(release), others: releases.list(dataset.id).filter((x) => x.id !== release.id).map((x) => x.tag),
      apiBase: `${req.protocol}://${req.get('host')}`, canDelete: req.user?.role === 'admin', runs, ...(errors ? { errors } : {}) });
  }

  r.get('/datasets/:id/releases/:tag', requireUser, (req, res) => {
    const loaded = load(req, res);
    if (loaded) sendDocument(res, releasePage(req, loaded.dataset, loaded.release));
  });

  r.get('/datasets/:id/releases/:tag/export', requireUser, async (req, res) => {
    const loaded = load(req, res);
    if (!loaded) return;
    await sendReleaseExport(app, req, res, loaded.release, (status, _reason, message) => sendError(req, res, status, message));
  });

  r.get('/datasets/:id/releases/:tag/diff', requireUser, (req, res) => {
    const loaded = load(req, res);
    if (!loaded) return;
    const { dataset, release } = loaded;
    const against = typeof req.query.against === 'string' ? req.query.against : 'now';
    const other = against === 'now' ? null : releases.byTag(dataset.id, against);
    if (against !== 'now' && !other) return sendError(req, res, 404, req.t('err.not_found'));
    const before = [...releases.records(release)].map(storedAsDiff);
    const after: Iterable<DiffInput> = other ? [...releases.records(other)].map(storedAsDiff) : releases.current(dataset.id, release.with_responses === 1);
    const diff = diffReleases(before, after);
    // Changed gold values tell the gold: hidden from whoever may still label items blind (access/permissions.ts).
    const goldHidden = !app.access.mayReadAllLabels(req.user, dataset.id);
    sendDocument(res, DiffPage({ ctx: pageContext(req), dataset, from: release.tag, to: other?.tag ?? null, diff: goldHidden ? { ...diff, gold: [] } : diff, goldHidden }));
  });

  r.post('/datasets/:id/releases/:tag/delete', admin, (req, res) => {
    const loaded = load(req, res);
    if (!loaded) return;
    const { dataset, release } = loaded;
    if (String((req.body as Record<string, unknown> | undefined)?.confirm ?? '').trim() !== release.tag) {
      return sendDocument(res, releasePage(req, dataset, release, { confirm: req.t('release.delete_mismatch', { tag: release.tag }) }), 422);
    }
    releases.remove(req.user!.id, release);
    app.log.info('release.deleted', { dataset: dataset.id, release: release.id, user: req.user!.id });
    req.session.flash = req.t('release.deleted_flash', { tag: release.tag });
    res.redirect(303, `/datasets/${dataset.id}/releases`);
  });

  return r;
}
