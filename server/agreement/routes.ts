// HTTP for inter-expert agreement: aggregate figures per criterion of a dataset, for any signed-in user.
import { Router } from 'express';
import type { AppContext } from '../app-context.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendDocument } from '../http/render.ts';
import { requireUser } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import { keptAgreement } from './service.ts';
import { AgreementPage } from '../../views/pages/agreement.tsx';

export function agreementRoutes(app: AppContext): Router {
  const r = Router();

  // Aggregate figures only (no individual label), so every role may read them, like the criteria page.
  r.get('/datasets/:id/agreement', requireUser, (req, res) => {
    const dataset = app.datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return sendError(req, res, 404, req.t('err.not_found'));
    sendDocument(res, AgreementPage({ ctx: pageContext(req), dataset, rows: keptAgreement(app, dataset.id).rows() }));
  });

  return r;
}
