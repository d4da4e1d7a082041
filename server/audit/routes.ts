// HTTP for the global audit log (admins).
import { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { pageContext } from '../http/page.ts';
import { sendDocument } from '../http/render.ts';
import { requireRole } from '../http/security.ts';
import { AuditPage } from '../../views/pages/admin.tsx';
import { AUDIT_TYPES } from './queries.ts';

const Query = z.object({
  before: z.coerce.number().int().positive().optional().catch(undefined),
  type: z.enum(AUDIT_TYPES).optional().catch(undefined),
});
const PAGE = 100;

export function auditRoutes(app: AppContext): Router {
  const r = Router();
  r.get('/audit', requireRole('admin', app.log), (req, res) => {
    const q = Query.parse(req.query);
    const events = app.audit.page({ before: q.before, limit: PAGE, type: q.type ?? null });
    const nextBefore = events.length === PAGE ? events[events.length - 1]!.id : null;
    sendDocument(res, AuditPage({ ctx: pageContext(req), events, type: q.type ?? '', nextBefore }));
  });
  return r;
}
