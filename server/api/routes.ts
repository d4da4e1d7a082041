// The JSON API under /api/v1, authenticated with bearer tokens: CI jobs push responses here.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { AppContext } from '../app-context.ts';
import { can } from '../http/security.ts';
import { idParam } from '../datasets/routes.ts';
import type { TokenService } from './tokens.ts';
import { LIMITS } from '../limits.ts';
import { releaseApiRoutes } from '../releases/api-routes.ts';
import { isLocale, pickLocale, translator, type Locale } from '../i18n/index.ts';
import { rowErrorMessage } from '../importexport/messages.ts';

/** An API refusal: `error` (and each row error's `code`) is the contract; `message` is in the caller's language (apiLocale). */
function apiError(res: Response, status: number, error: string, message: string, extra: Record<string, unknown> = {}): void {
  res.status(status).json({ error, message, ...extra });
}

/**
 * The language of an API answer's messages: the request's Accept-Language when it names a language
 * goldset speaks (a client asks per request), else the saved language of the token's user, else English.
 */
export function apiLocale(req: Request): Locale {
  const asked = req.get('Accept-Language');
  if (asked && /(^|,)\s*(zh|en)\b/i.test(asked)) return pickLocale(undefined, asked);
  return isLocale(req.user?.locale) ? req.user.locale : 'en';
}

export function apiRoutes(app: AppContext, tokens: TokenService): Router {
  const r = Router();

  // Every API request carries a token; cookies are never accepted here, so CSRF cannot reach the API.
  r.use('/api/v1', (req: Request, res: Response, next: NextFunction) => {
    const header = req.get('Authorization') ?? '';
    const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? '';
    const user = tokens.authenticate(token);
    req.user = user;
    req.locale = apiLocale(req);
    req.t = translator(req.locale);
    if (!user) {
      app.log.warn('api.unauthorized', { path: req.path, ip: req.ip, reason: token ? 'bad token' : 'no token' });
      res.set('WWW-Authenticate', 'Bearer');
      return apiError(res, 401, 'unauthorized', req.t('api.unauthorized'));
    }
    next();
  });

  r.get('/api/v1/datasets', (_req, res) => {
    res.json({ datasets: app.datasets.list().map((d) => ({ id: d.id, name: d.name, language: d.language, samples: d.n_samples })) });
  });

  r.post('/api/v1/datasets/:id/responses', async (req, res) => {
    if (!can(req.user!.role, 'expert')) {
      app.log.warn('authz.refused', { path: req.path, user: req.user!.id, role: req.user!.role });
      return apiError(res, 403, 'forbidden', req.t('api.forbidden_viewer'));
    }
    const dataset = app.datasets.get(idParam(req.params.id) ?? 0);
    if (!dataset) return apiError(res, 404, 'not_found', req.t('api.no_dataset'));
    if (dataset.archived) return apiError(res, 409, 'archived', req.t('api.archived'));
    const body = req.body as unknown;
    const rows = Array.isArray(body) ? body : (body && typeof body === 'object' && Array.isArray((body as { rows?: unknown }).rows)) ? (body as { rows: unknown[] }).rows : null;
    if (!rows) return apiError(res, 422, 'invalid_body', req.t('api.invalid_body'));
    if (rows.length === 0) return apiError(res, 422, 'invalid_body', req.t('api.no_rows'));
    if (rows.length > LIMITS.apiRows) return apiError(res, 422, 'too_many_rows', req.t('api.too_many_rows', { limit: LIMITS.apiRows }));
    // The same all-or-nothing import as files: one JSONL line per row, so errors name the row.
    const file = path.join(os.tmpdir(), `goldset-api-${crypto.randomUUID()}.jsonl`);
    try {
      await fs.writeFile(file, rows.map((row) => JSON.stringify(row)).join('\n'));
      const result = await app.imports.importFile(req.user!.id, dataset.id, file, { format: 'jsonl', filename: 'api.jsonl' });
      if (!result.ok) {
        // Each row error names its row apart, so its message names none (line 0).
        const errors = result.needsAnnotator
          ? [{ row: null, field: null, message: req.t('api.no_labels') }]
          : result.scoreError ? [{ row: null, field: null, message: req.t(result.scoreError.key, result.scoreError.params) }]
          : result.errors.map((e) => ({ row: e.line, field: e.field, code: e.code, message: rowErrorMessage({ ...e, line: 0 }, req.locale) }));
        app.log.info('api.import_refused', { dataset: dataset.id, user: req.user!.id, errors: result.totalErrors });
        return apiError(res, 422, 'invalid_rows', req.t('import.nothing_imported'), { errors });
      }
      app.log.info('api.import', { dataset: dataset.id, user: req.user!.id, rows: result.rows, responses: result.responsesCreated });
      res.status(201).json({
        rows: result.rows, samples_created: result.created, responses_created: result.responsesCreated,
        responses_existing: result.responsesMatched, ignored_columns: result.ignoredColumns,
      });
    } finally {
      await fs.rm(file, { force: true });
    }
  });

  r.use(releaseApiRoutes(app, apiError));

  r.use('/api', (req, res) => apiError(res, 404, 'not_found', translator(apiLocale(req))('api.no_endpoint')));
  return r;
}
