// Guards every request passes: CSRF on state changes, login, and role checks. Refusals are logged.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../log.ts';
import type { Role } from './context.ts';
import { readCookie, writeCookie } from './cookies.ts';
import { sendHtml, wantsFragment } from './render.ts';
import { sendError } from './page.ts';
import { SessionNotice } from '../../views/components.tsx';
import type { MessageKey } from '../i18n/index.ts';

/**
 * Refuses a request for want of a current sign-in. A request htmx makes from a page is answered into
 * the page's sign-in notice (`HX-Retarget`), not into its target: the workspace and what the person
 * entered in it stay, and the page takes the next sign-in's token by itself (public/app.js). A page
 * load gets the error page, in the person's language (the browser's Back usually still holds the form).
 * A refused read (a filter, a run's progress) saved nothing, so the notice does not say it did.
 */
function refuseSignIn(req: Request, res: Response, status: number, key: MessageKey, pageKey: MessageKey): void {
  if (!wantsFragment(req)) return sendError(req, res, status, req.t(key));
  const signedOut = req.session?.userId === undefined;
  const reading = SAFE_METHODS.has(req.method);
  res.set({ 'HX-Retarget': '#session-notice', 'HX-Reswap': 'innerHTML' });
  sendHtml(res, SessionNotice({
    t: req.t, signIn: signedOut,
    message: req.t(reading ? 'session.ended_view' : signedOut ? 'session.ended' : pageKey),
    resumed: req.t(reading ? 'session.resumed_view' : 'session.resumed'),
  }), status);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The cookie that carries an anonymous visitor's CSRF nonce (no session is stored before login). */
export const CSRF_COOKIE = 'goldset.csrf';
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a), y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/**
 * CSRF protection for cookie-authenticated requests (the bearer-token API is exempt).
 *
 * Signed-in users: a synchronizer token kept in their session. Anonymous visitors (the login,
 * setup and invitation forms, the language switch) have no session row — storing one per visitor
 * would let anyone fill the table — so they get a signed double-submit token instead: a random
 * nonce in an HttpOnly cookie, and the form carries HMAC(secret, nonce). A cross-site form cannot
 * read the cookie, and without the server's secret no valid pair can be made up.
 */
export function csrfProtection(log: Logger, secret: string, secureCookies: boolean) {
  const sign = (nonce: string) => crypto.createHmac('sha256', secret).update(`csrf:${nonce}`).digest('base64url');

  /** The token this request's forms carry; given the response, creates what it needs (a session value or the cookie). */
  function tokenFor(req: Request, res: Response | null): string | null {
    if (req.session.userId !== undefined) {
      if (!req.session.csrf && res) req.session.csrf = crypto.randomBytes(32).toString('base64url');
      return req.session.csrf ?? null;
    }
    let nonce = readCookie(req, CSRF_COOKIE);
    if (!nonce || !/^[A-Za-z0-9_-]{43}$/.test(nonce)) {
      if (!res) return null;
      nonce = crypto.randomBytes(32).toString('base64url');
      writeCookie(res, CSRF_COOKIE, nonce, { secure: secureCookies, maxAgeMs: YEAR_MS });
    }
    return sign(nonce);
  }

  return (req: Request, res: Response, next: NextFunction): void => {
    // Bearer tokens, never cookies, authenticate the API: nothing to protect there, and no cookie to set.
    if (req.path.startsWith('/api/')) { req.csrfToken = ''; return next(); }
    const safe = SAFE_METHODS.has(req.method);
    const expected = tokenFor(req, safe ? res : null);
    req.csrfToken = expected ?? '';
    if (safe) return next();
    const body = req.body as Record<string, unknown> | undefined;
    const sent = req.get('X-CSRF-Token') ?? (typeof body?._csrf === 'string' ? body._csrf : '');
    if (expected && sent && sameToken(sent, expected)) return next();
    if (req.file) fs.unlink(req.file.path, () => {});
    log.warn('csrf.refused', { method: req.method, path: req.path, ip: req.ip, user: req.user?.id ?? null });
    refuseSignIn(req, res, 403, 'err.csrf', 'session.outdated');
  };
}

export function requireUser(req: Request, res: Response, next: NextFunction): void {
  if (req.user) return next();
  // htmx would follow a redirect to the sign-in page and swap that page into its target (a list, the workspace).
  if (SAFE_METHODS.has(req.method) && !wantsFragment(req)) {
    res.redirect(303, `/login?next=${encodeURIComponent(req.originalUrl)}`);
  } else {
    refuseSignIn(req, res, 401, 'err.login_required', 'session.ended');
  }
}

const RANK: Record<Role, number> = { viewer: 0, expert: 1, admin: 2 };

export function can(role: Role | undefined, needed: Role): boolean {
  return role !== undefined && RANK[role] >= RANK[needed];
}

/** Viewers read; experts (and admins) write; admins manage. */
export function requireRole(needed: Role, log: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!req.user) return requireUser(req, res, next);
    if (can(req.user.role, needed)) return next();
    log.warn('authz.refused', { method: req.method, path: req.path, user: req.user.id, role: req.user.role, needed });
    res.status(403).type('text').send(req.t('err.forbidden'));
  };
}
