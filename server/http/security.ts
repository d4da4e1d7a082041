// Guards every request passes: CSRF on state changes, login, and role checks. Refusals are logged.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../log.ts';
import type { Role } from './context.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function ensureCsrfToken(req: Request): string {
  if (!req.session.csrf) req.session.csrf = crypto.randomBytes(32).toString('base64url');
  return req.session.csrf;
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a), y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** Synchronizer-token CSRF check for cookie-authenticated requests (the bearer-token API is exempt). */
export function csrfProtection(log: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    req.csrfToken = ensureCsrfToken(req);
    if (SAFE_METHODS.has(req.method) || req.path.startsWith('/api/')) return next();
    const body = req.body as Record<string, unknown> | undefined;
    const sent = req.get('X-CSRF-Token') ?? (typeof body?._csrf === 'string' ? body._csrf : '');
    if (sent && sameToken(sent, req.csrfToken)) return next();
    if (req.file) fs.unlink(req.file.path, () => {});
    log.warn('csrf.refused', { method: req.method, path: req.path, ip: req.ip, user: req.user?.id ?? null });
    res.status(403).type('text').send(req.t('err.csrf'));
  };
}

export function requireUser(req: Request, res: Response, next: NextFunction): void {
  if (req.user) return next();
  if (SAFE_METHODS.has(req.method)) {
    res.redirect(303, `/login?next=${encodeURIComponent(req.originalUrl)}`);
  } else {
    res.status(401).type('text').send(req.t('err.login_required'));
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
