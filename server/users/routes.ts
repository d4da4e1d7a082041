// HTTP for user administration: invite, change role, disable. Admins only.
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { emailField } from './email.ts';
import type { AppContext } from '../app-context.ts';
import { nameText, parseForm, sentValues } from '../http/forms.ts';
import { pageContext, sendError } from '../http/page.ts';
import { sendDocument } from '../http/render.ts';
import { requireRole } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import { UserConflict, UserError } from './service.ts';
import { UsersPage } from '../../views/pages/admin.tsx';
import { LIMITS } from '../limits.ts';

const role = z.enum(['admin', 'expert', 'viewer'], { error: 'err.invalid' });
const InviteForm = z.object({
  email: emailField,
  name: nameText(LIMITS.userName),
  role,
});
// was_*: the role and access the page showed (a change by another admin since then is not overwritten).
const UpdateForm = z.object({ role, disabled: z.literal('1').optional(), was_role: role, was_disabled: z.enum(['0', '1']) });

export function adminRoutes(app: AppContext): Router {
  const r = Router();
  const admin = requireRole('admin', app.log);
  const { users } = app;

  // The link is shown once, on this response only (never cached); the database keeps its hash.
  function showLink(req: Request, res: Response, email: string, token: string) {
    res.set('Cache-Control', 'no-store');
    const link = `${req.protocol}://${req.get('host')}/invite/${token}`;
    sendDocument(res, UsersPage({ ctx: pageContext(req), users: users.queries.all(), invite: { email, link } }));
  }

  r.get('/admin/users', admin, (req, res) => {
    sendDocument(res, UsersPage({ ctx: pageContext(req), users: users.queries.all() }));
  });

  r.post('/admin/users', admin, (req, res) => {
    const form = parseForm(InviteForm, req.body, req.t);
    const rerender = (errors: Record<string, string>) =>
      sendDocument(res, UsersPage({ ctx: pageContext(req), users: users.queries.all(), values: sentValues(req.body), errors }), 422);
    if (!form.ok) return rerender(form.errors);
    try {
      const { user, token } = users.invite(req.user!.id, form.data);
      showLink(req, res, user.email, token);
    } catch (err) {
      if (err instanceof UserError) return rerender({ [err.field]: req.t(err.key) });
      throw err;
    }
  });

  /** A new link for someone invited who has not joined yet (lost or expired link); the old one stops working. */
  r.post('/admin/users/:id/invite', admin, (req, res) => {
    const id = idParam(req.params.id);
    if (!id || !users.queries.byId(id)) return sendError(req, res, 404, req.t('err.not_found'));
    try {
      const { user, token } = users.reissueInvite(req.user!.id, id);
      app.log.info('invite.reissued', { user: id, by: req.user!.id });
      showLink(req, res, user.email, token);
    } catch (err) {
      if (err instanceof UserError) return sendDocument(res, UsersPage({ ctx: pageContext(req), users: users.queries.all(), errors: { _form: req.t(err.key) } }), 422);
      throw err;
    }
  });

  r.post('/admin/users/:id', admin, (req, res) => {
    const id = idParam(req.params.id);
    if (!id || !users.queries.byId(id)) return sendError(req, res, 404, req.t('err.not_found'));
    const form = parseForm(UpdateForm, req.body, req.t);
    if (!form.ok) return sendError(req, res, 422, req.t('err.invalid'));
    try {
      const disabled = form.data.disabled === '1';
      users.update(req.user!.id, id, { role: form.data.role, disabled }, { role: form.data.was_role, disabled: form.data.was_disabled === '1' });
      if (disabled) app.sessionStore.destroyForUser(id);
      req.session.flash = req.t('flash.saved');
      res.redirect(303, '/admin/users');
    } catch (err) {
      // Why the row was not saved goes above the table (the page shows the users as they are now).
      const refuse = (tableError: string, status: number) => sendDocument(res, UsersPage({ ctx: pageContext(req), users: users.queries.all(), tableError, flagged: id }), status);
      if (err instanceof UserError) return refuse(req.t(err.key), 422);
      if (err instanceof UserConflict) {
        const { current } = err;
        return refuse(req.t('users.err_conflict', { email: current.email, role: req.t(`role.${current.role}` as 'role.admin'),
          access: req.t(current.disabled ? 'users.disabled' : 'users.enabled') }), 409);
      }
      throw err;
    }
  });

  return r;
}
