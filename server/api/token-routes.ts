// HTTP for managing one's own API tokens.
import { Router } from 'express';
import { z } from 'zod';
import type { AppContext } from '../app-context.ts';
import { nameText, parseForm } from '../http/forms.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendDocument } from '../http/render.ts';
import { requireUser } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import type { TokenService } from './tokens.ts';
import { TokensPage } from '../../views/pages/tokens.tsx';
import { LIMITS } from '../limits.ts';

const TokenForm = z.object({ name: nameText(LIMITS.tokenName, 1) });

export function tokenRoutes(app: AppContext, tokens: TokenService): Router {
  const r = Router();
  r.get('/tokens', requireUser, (req, res) => {
    sendDocument(res, TokensPage({ ctx: pageContext(req), tokens: tokens.forUser(req.user!.id) }));
  });
  r.post('/tokens', requireUser, (req, res) => {
    const form = parseForm(TokenForm, req.body, req.t);
    if (!form.ok) return sendDocument(res, TokensPage({ ctx: pageContext(req), tokens: tokens.forUser(req.user!.id), errors: form.errors }), 422);
    const token = tokens.create(req.user!.id, form.data.name);
    res.set('Cache-Control', 'no-store');
    sendDocument(res, TokensPage({ ctx: pageContext(req), tokens: tokens.forUser(req.user!.id), created: token, origin: `${req.protocol}://${req.get('host')}` }));
  });
  r.post('/tokens/:id/revoke', requireUser, (req, res) => {
    if (!tokens.revoke(req.user!.id, idParam(req.params.id) ?? 0)) return sendError(req, res, 404, req.t('err.not_found'));
    req.session.flash = req.t('tokens.revoked_flash');
    res.redirect(303, '/tokens');
  });
  return r;
}
