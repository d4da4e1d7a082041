// First-run setup, login/logout, invitation acceptance and the language switch.
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { emailField } from '../users/email.ts';
import type { AppContext } from '../app-context.ts';
import { nameText, parseForm, sentValues } from '../http/forms.ts';
import { sendDocument } from '../http/render.ts';
import { pageContext } from '../http/page.ts';
import { isLocale } from '../i18n/index.ts';
import { writeCookie } from '../http/cookies.ts';
import { UserError } from '../users/service.ts';
import { InvitePage, LoginPage, SetupPage } from '../../views/pages/auth.tsx';
import { LIMITS } from '../limits.ts';

const email = emailField;
const newPassword = z.string({ error: 'err.required' }).min(LIMITS.passwordMin, { error: 'err.password_short' }).max(LIMITS.password, { error: 'err.too_long' });

const SetupForm = z.object({ email, name: nameText(LIMITS.userName), password: newPassword });
const LoginForm = z.object({ email, password: z.string().min(1, { error: 'err.required' }).max(LIMITS.password), next: z.string().optional() });
const InviteForm = z.object({ password: newPassword });

/** Only same-site paths are followed after login, never another origin. */
function safeNext(next: string | undefined): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/datasets';
}

/** The language chosen before signing in (or by someone without an account's saved choice). */
export const LOCALE_COOKIE = 'goldset.lang';
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/** A fresh session id at every change of identity, so a planted session cannot be taken over. */
function startSession(req: Request, userId: number): Promise<void> {
  return new Promise((resolve, reject) => {
    req.session.regenerate((err) => {
      if (err) return reject(err);
      req.session.userId = userId;
      req.session.save((e) => (e ? reject(e) : resolve()));
    });
  });
}

export function authRoutes(app: AppContext): Router {
  const r = Router();
  const users = app.users;

  r.get('/setup', (req, res) => {
    if (!users.needsSetup()) return res.redirect(303, '/login');
    sendDocument(res, SetupPage({ ctx: pageContext(req) }));
  });

  r.post('/setup', async (req, res) => {
    if (!users.needsSetup()) return res.redirect(303, '/login');
    const form = parseForm(SetupForm, req.body, req.t);
    if (!form.ok) return sendDocument(res, SetupPage({ ctx: pageContext(req), values: sentValues(req.body), errors: form.errors }), 422);
    try {
      const user = await users.createFirstAdmin(form.data);
      app.log.info('setup.admin_created', { user: user.id });
      await startSession(req, user.id);
      res.redirect(303, '/datasets');
    } catch (err) {
      if (!(err instanceof UserError)) throw err;
      res.redirect(303, '/login');
    }
  });

  // The current sign-in's form token, as a text, for a page made under an earlier one (its sign-in notice:
  // public/app.js). Same-origin only (no CORS), never kept by a cache; 401 while nobody is signed in.
  r.get('/session/csrf', (req, res) => {
    res.set('Cache-Control', 'no-store');
    if (!req.user) return res.status(401).type('text').send(req.t('err.login_required'));
    res.type('text').send(req.csrfToken);
  });

  r.get('/login', (req, res) => {
    if (req.user) return res.redirect(303, safeNext(String(req.query.next ?? '')));
    sendDocument(res, LoginPage({ ctx: pageContext(req), next: String(req.query.next ?? '') }));
  });

  r.post('/login', async (req: Request, res: Response) => {
    const form = parseForm(LoginForm, req.body, req.t);
    const next = typeof req.body?.next === 'string' ? req.body.next : '';
    if (!form.ok) return sendDocument(res, LoginPage({ ctx: pageContext(req), email: String(req.body?.email ?? ''), next, errors: form.errors }), 422);
    const result = await users.login(form.data.email, form.data.password, req.ip ?? '');
    if (!result.ok) {
      app.log.warn('login.refused', { reason: result.reason, ip: req.ip });
      const key = result.reason === 'throttled' ? 'err.login_throttled' : result.reason === 'disabled' ? 'err.account_disabled' : 'err.login_invalid';
      const status = result.reason === 'throttled' ? 429 : 401;
      return sendDocument(res, LoginPage({ ctx: pageContext(req), email: form.data.email, next, errors: { _form: req.t(key) } }), status);
    }
    await startSession(req, result.user.id);
    app.log.info('login.ok', { user: result.user.id });
    res.redirect(303, safeNext(form.data.next));
  });

  r.post('/logout', (req, res) => {
    req.session.destroy(() => res.redirect(303, '/login'));
  });

  r.get('/invite/:token', (req, res) => {
    const user = users.inviteUser(req.params.token);
    if (!user) return sendDocument(res, LoginPage({ ctx: pageContext(req), errors: { _form: req.t('err.invite_invalid') } }), 404);
    sendDocument(res, InvitePage({ ctx: pageContext(req), token: req.params.token, email: user.email }));
  });

  r.post('/invite/:token', async (req, res) => {
    const user = users.inviteUser(req.params.token);
    if (!user) return sendDocument(res, LoginPage({ ctx: pageContext(req), errors: { _form: req.t('err.invite_invalid') } }), 404);
    const form = parseForm(InviteForm, req.body, req.t);
    if (!form.ok) return sendDocument(res, InvitePage({ ctx: pageContext(req), token: req.params.token, email: user.email, errors: form.errors }), 422);
    let accepted;
    try {
      accepted = await users.acceptInvite(req.params.token, form.data.password);
    } catch (err) {
      // Two accepts of one link at once: the second finds it used.
      if (!(err instanceof UserError)) throw err;
      app.log.warn('invite.refused', { reason: err.key, ip: req.ip });
      return sendDocument(res, LoginPage({ ctx: pageContext(req), errors: { _form: req.t(err.key) } }), 409);
    }
    await startSession(req, accepted.id);
    res.redirect(303, '/datasets');
  });

  r.post('/locale', (req, res) => {
    const locale = req.body?.locale;
    if (isLocale(locale)) {
      // A cookie, not the session: a visitor who has not signed in has no session row, and gets none for this.
      writeCookie(res, LOCALE_COOKIE, locale, { secure: app.config.secureCookies, maxAgeMs: YEAR_MS });
      if (req.user) users.queries.setLocale(req.user.id, locale);
    }
    res.redirect(303, safeNext(typeof req.body?.back === 'string' ? req.body.back : undefined));
  });

  return r;
}
