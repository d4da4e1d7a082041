// The release part of the JSON API (bearer tokens; a viewer's token reads): the releases of a
// dataset, and one export of a release, answered with the same bytes every time under an ETag.
import { Router } from 'express';
import type { AppContext } from '../app-context.ts';
import { idParam } from '../datasets/routes.ts';
import { sendReleaseExport } from './routes.ts';

export function releaseApiRoutes(app: AppContext, apiError: (res: import('express').Response, status: number, error: string, message: string) => void): Router {
  const r = Router();

  r.get('/api/v1/datasets/:id/releases', (req, res) => {
    const dataset = app.datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return apiError(res, 404, 'not_found', req.t('api.no_dataset'));
    res.json({ releases: app.releases.list(dataset.id).map((x) => ({ tag: x.tag, hash: x.hash, samples: x.n_samples, responses: x.n_responses,
      with_responses: x.with_responses === 1, note: x.note, created_at: x.created_at })) });
  });

  r.get('/api/v1/datasets/:id/releases/:tag/export', async (req, res) => {
    const dataset = app.datasets.get(idParam(req.params.id) ?? 0);
    const release = dataset && app.releases.byTag(dataset.id, req.params.tag);
    if (!release) return apiError(res, 404, 'not_found', req.t(dataset ? 'api.no_release' : 'api.no_dataset'));
    await sendReleaseExport(app, req, res, release, (status, reason, message) => apiError(res, status, reason, message));
    app.log.info('api.release_export', { dataset: dataset!.id, release: release.id, user: req.user!.id, status: res.statusCode });
  });

  return r;
}
