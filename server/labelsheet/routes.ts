// HTTP for offline labelling sheets: the page that offers one (an admin picks the expert), and the
// download. Filled sheets come back through the dataset's Import page (importexport/routes.ts).
import { z } from 'zod';
import { Router, type Request, type Response } from 'express';
import type { AppContext } from '../app-context.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendDocument } from '../http/render.ts';
import { requireUser } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import type { DatasetRow } from '../datasets/queries.ts';
import type { UserRow } from '../users/queries.ts';
import { CONTENT_TYPES } from '../importexport/export.ts';
import { MAX_SHEET_ROWS, sheetQueries, writeLabellingSheet } from './sheet.ts';
import { LabellingSheetPage } from '../../views/pages/labelling-sheet.tsx';

/** How many items a downloaded sheet holds at most (`?limit=`): a whole number up to MAX_SHEET_ROWS, which is also what anything else asks for. */
const SheetLimit = z.coerce.number().int().min(1).max(MAX_SHEET_ROWS).catch(MAX_SHEET_ROWS);

export function labellingSheetRoutes(app: AppContext): Router {
  const r = Router();
  const q = sheetQueries(app.db);

  /** Who the sheet is for: an admin may choose any expert who may label here; everyone else gets their own. */
  function annotatorFor(req: Request, res: Response, dataset: DatasetRow): UserRow | null {
    const chosen = req.user!.role === 'admin' ? idParam(req.query.annotator) : null;
    const user = chosen ? app.users.queries.byId(chosen) : app.users.queries.byId(req.user!.id);
    if (!user || user.disabled || !app.labels.canLabel(dataset.id, user)) {
      app.log.warn('authz.refused', { path: req.path, user: req.user!.id, reason: 'not a labeller' });
      sendError(req, res, 403, req.t('err.not_labeller'));
      return null;
    }
    return user;
  }

  function datasetOf(req: Request, res: Response): DatasetRow | null {
    const dataset = app.datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) { sendError(req, res, 404, req.t('err.not_found')); return null; }
    return dataset;
  }

  r.get('/datasets/:id/labelling-sheet', requireUser, (req, res) => {
    const dataset = datasetOf(req, res);
    if (!dataset) return;
    if (req.user!.role !== 'admin' && !app.labels.canLabel(dataset.id, req.user)) return sendError(req, res, 403, req.t('err.not_labeller'));
    const experts = req.user!.role === 'admin'
      ? app.users.queries.all().filter((u) => !u.disabled && u.role !== 'viewer' && app.labels.canLabel(dataset.id, u)).map((u) => ({ id: u.id, email: u.email }))
      : [];
    sendDocument(res, LabellingSheetPage({ ctx: pageContext(req), dataset, experts, maxRows: MAX_SHEET_ROWS }));
  });

  r.get('/datasets/:id/labelling-sheet/download', requireUser, async (req, res) => {
    const dataset = datasetOf(req, res);
    if (!dataset) return;
    const annotator = annotatorFor(req, res, dataset);
    if (!annotator) return;
    const limit = SheetLimit.parse(req.query.limit);
    res.type(CONTENT_TYPES.xlsx).attachment(`labelling-${dataset.id}-${annotator.email.replace(/[^A-Za-z0-9._-]+/g, '_')}.xlsx`);
    res.set('Cache-Control', 'no-store');
    try {
      const n = await writeLabellingSheet(q, { dataset, annotator, criteria: app.criteria.forDataset(dataset.id), t: req.t, limit }, res);
      app.log.info('labelling_sheet.download', { dataset: dataset.id, annotator: annotator.id, user: req.user!.id, rows: n });
    } catch (err) {
      app.log.warn('labelling_sheet.download_failed', { dataset: dataset.id, message: (err as Error).message });
      res.destroy();
    }
  });

  return r;
}
