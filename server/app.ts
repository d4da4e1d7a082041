// Builds the express app: security headers, body limits, sessions, language, CSRF, routes, errors.
import path from 'node:path';
import os from 'node:os';
import { createRequire } from 'node:module';
import express, { type NextFunction, type Request, type Response } from 'express';
import session from 'express-session';
import helmet from 'helmet';
import multer from 'multer';
import type { AppContext } from './app-context.ts';
import { pickLocale, translator } from './i18n/index.ts';
import { can, csrfProtection, requireUser } from './http/security.ts';
import { sendError } from './http/page.ts';
import { authRoutes } from './auth/routes.ts';
import { adminRoutes } from './users/routes.ts';
import { datasetRoutes } from './datasets/routes.ts';
import { sampleRoutes } from './samples/routes.ts';
import { importExportRoutes, UPLOAD_PATH } from './importexport/routes.ts';
import { auditRoutes } from './audit/routes.ts';
import { sessionSecret } from './http/secret.ts';
import { readCookie } from './http/cookies.ts';
import { LOCALE_COOKIE } from './auth/routes.ts';
import { criterionRoutes } from './criteria/routes.ts';
import { labelRoutes, madeInLabelThread } from './labels/routes.ts';
import type { LabelThread } from './labels/label-thread-client.ts';
import { adjudicationRoutes } from './labels/adjudication-routes.ts';
import { apiLocale, apiRoutes } from './api/routes.ts';
import { jsonProblem } from './importexport/messages.ts';
import { agreementRoutes } from './agreement/routes.ts';
import { judgeSettingsRoutes } from './judge/settings-routes.ts';
import { runRoutes } from './judge/run-routes.ts';
import { metricRoutes } from './judge/metric-routes.ts';
import { calibrationRoutes } from './calibration/routes.ts';
import { estimateRoutes } from './estimate/routes.ts';
import { contextCalibrationRoutes } from './calibration/context-routes.ts';
import { contextReviewRoutes } from './review/context-routes.ts';
import { labRoutes } from './calibration/lab-routes.ts';
import { reviewRoutes } from './review/routes.ts';
import { tokenRoutes } from './api/token-routes.ts';
import { ArchivedError } from './datasets/archived.ts';
import { jsonTooDeep, LIMITS } from './limits.ts';

/** A multipart body multer could not read (malformed, or not the import form's one file and few fields): the sender's fault. */
class UnreadableUpload extends Error {
  constructor(readonly reason: string) { super(`unreadable upload: ${reason}`); }
}

/**
 * What multer's failure means. A file over the size limit keeps multer's error (answered 413); a
 * failure of the disk (an error with a system call: a full temp folder) stays a server error; any other
 * is the body's own (a malformed part, a second file, too many fields) and is answered 400.
 */
function unreadableUpload(err: unknown): unknown {
  if (err === undefined || err === null) return undefined;
  const e = err as { code?: unknown; syscall?: unknown };
  if (e.code === 'LIMIT_FILE_SIZE' || e.syscall !== undefined) return err;
  // Multer's code names the limit; the parser's own message is not logged (a parser may quote the body).
  return new UnreadableUpload(typeof e.code === 'string' ? e.code : 'malformed');
}

/** A JSON body nested deeper than LIMITS.jsonDepth. */
class TooDeepError extends Error {
  readonly status = 422;
}
import { releaseRoutes } from './releases/routes.ts';
import { labellingSheetRoutes } from './labelsheet/routes.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const HTMX_DIST = path.dirname(require.resolve('htmx.org/dist/htmx.min.js'));

export interface AppOptions {
  /**
   * Routes mounted after every middleware (security headers, body parsing, session, user, CSRF)
   * and before goldset's own. bench/label.ts mounts one that answers a constant, to measure what
   * the middleware alone costs a logged-in POST.
   */
  firstRoutes?: express.Router;
  /** The labelling thread (labels/label-thread-client.ts), which makes htmx save-and-next requests: server/main.ts starts it. */
  labelThread?: LabelThread;
}

export function createApp(ctx: AppContext, options: AppOptions = {}): express.Express {
  const app = express();
  const { config, log } = ctx;
  app.disable('x-powered-by');
  // Pages are rendered per user and per request; hashing each for an ETag only costs time.
  app.set('etag', false);
  app.set('trust proxy', 'loopback');

  app.use(helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        upgradeInsecureRequests: config.secureCookies ? [] : null,
      },
    },
    strictTransportSecurity: config.secureCookies,
  }));

  app.use('/static', express.static(path.join(ROOT, 'public'), { maxAge: '1h', index: false }));
  app.get('/static/htmx.min.js', (_req, res) => res.sendFile(path.join(HTMX_DIST, 'htmx.min.js'), { maxAge: '1d' }));
  app.get('/healthz', (_req, res) => { res.type('text').send('ok'); });

  /** The error page of a request that failed for a reason not its own, in the user's language. */
  const internalError = (req: Request, res: Response) => {
    req.t ??= translator(pickLocale(undefined, req.get('Accept-Language')));
    sendError(req, res, 500, req.t('err.internal'));
  };
  // Answers written while a group commit is open wait for its COMMIT (server/db/group-commit.ts).
  app.use(ctx.group.hold(internalError));

  app.use(express.urlencoded({ extended: false, limit: '2mb', parameterLimit: 5000 }));
  // A body nested deeper than the limit is refused before it is parsed: parsers and serialisers
  // recurse into it, and a deep enough one overflows the stack.
  app.use(express.json({ limit: '10mb', verify: (_req, _res, buf) => { if (jsonTooDeep(buf, LIMITS.jsonDepth)) throw new TooDeepError(); } }));

  const secret = sessionSecret(ctx.db, config.sessionSecret);
  // A session is stored only once something needs it (a sign-in): saveUninitialized is off, and
  // nothing writes into an anonymous visitor's session (CSRF and language use cookies then).
  app.use(session({
    name: 'goldset.sid',
    store: ctx.sessionStore,
    secret,
    resave: false,
    saveUninitialized: false,
    rolling: true,
    cookie: { httpOnly: true, sameSite: 'lax', secure: config.secureCookies, maxAge: 7 * 24 * 60 * 60 * 1000 },
  }));

  // Who is asking, and in which language.
  app.use((req: Request, _res: Response, next: NextFunction) => {
    const row = req.session.userId ? ctx.users.queries.byId(req.session.userId) : undefined;
    req.user = row && !row.disabled ? { id: row.id, email: row.email, name: row.name, role: row.role, locale: row.locale } : null;
    if (req.session.userId && !req.user) delete req.session.userId;
    req.locale = pickLocale(req.user?.locale ?? readCookie(req, LOCALE_COOKIE), req.get('Accept-Language'));
    req.t = translator(req.locale);
    next();
  });

  // Multipart bodies are parsed only on the upload route and only for users allowed to write, so
  // that the CSRF check below sees the form's token and strangers cannot fill the temp folder.
  const upload = multer({ dest: path.join(os.tmpdir(), 'goldset-uploads'), limits: { fileSize: config.maxUploadBytes, files: 1, fields: 20 } });
  app.post(UPLOAD_PATH, (req: Request, res: Response, next: NextFunction) =>
    can(req.user?.role, 'expert') ? upload.single('file')(req, res, (err?: unknown) => next(unreadableUpload(err))) : next());

  app.use(csrfProtection(log, secret, config.secureCookies));

  // Until the first admin exists, nothing but the setup page is reachable.
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.path === '/setup' || req.path === '/locale' || !ctx.users.needsSetup()) return next();
    if (req.method === 'GET') return res.redirect(303, '/setup');
    res.status(403).type('text').send(req.t('err.setup_first'));
  });

  if (options.firstRoutes) app.use(options.firstRoutes);
  // The writes of every request of this turn of the event loop share one commit (group-commit.ts).
  app.use((req: Request, _res: Response, next: NextFunction) => {
    // With a labelling thread, htmx's save-and-next writes there, in that thread's own group.
    if (req.method !== 'GET' && req.method !== 'HEAD' && !(options.labelThread && madeInLabelThread(req))) ctx.group.join();
    next();
  });
  // Saving a label and getting the next item is the request experts make all day, so its router
  // comes first; no router below serves any of its paths, so the order changes nothing else.
  app.use(labelRoutes(ctx, options.labelThread));
  app.use(apiRoutes(ctx, ctx.tokens));
  app.use(authRoutes(ctx));
  app.use(tokenRoutes(ctx, ctx.tokens));
  app.get('/', requireUser, (_req, res) => res.redirect(303, '/datasets'));
  app.use(adminRoutes(ctx));
  app.use(datasetRoutes(ctx));
  app.use(sampleRoutes(ctx));
  app.use(importExportRoutes(ctx));
  app.use(auditRoutes(ctx));
  app.use(criterionRoutes(ctx));
  app.use(adjudicationRoutes(ctx));
  app.use(agreementRoutes(ctx));
  app.use(judgeSettingsRoutes(ctx));
  app.use(runRoutes(ctx));
  app.use(metricRoutes(ctx));
  app.use(calibrationRoutes(ctx));
  app.use(estimateRoutes(ctx));
  app.use(contextCalibrationRoutes(ctx));
  app.use(labRoutes(ctx));
  // Before reviewRoutes: its /runs/:id/review/:rid would take /runs/:id/review/contexts.
  app.use(contextReviewRoutes(ctx));
  app.use(reviewRoutes(ctx));
  app.use(releaseRoutes(ctx));
  app.use(labellingSheetRoutes(ctx));

  app.use((req: Request, res: Response) => sendError(req, res, 404, req.t('err.not_found')));

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = err as { status?: number; type?: string; code?: string; message?: string };
    req.t ??= translator(pickLocale(undefined, req.get('Accept-Language')));
    // Every write path refuses an archived dataset in its service; the answer is the same everywhere.
    if (err instanceof ArchivedError) {
      log.info('dataset.archived_refused', { method: req.method, path: req.path, user: req.user?.id ?? null, dataset: err.datasetId });
      if (req.path.startsWith('/api/')) return res.status(409).json({ error: 'archived', message: translator(apiLocale(req))('api.archived') });
      return sendError(req, res, 409, req.t('err.dataset_archived'));
    }
    if ((err as { cause?: unknown })?.cause instanceof TooDeepError || err instanceof TooDeepError) {
      log.warn('request.too_deep', { method: req.method, path: req.path, ip: req.ip });
      if (req.path.startsWith('/api/')) {
        return res.status(422).json({ error: 'too_deep', message: translator(apiLocale(req))('api.too_deep', { limit: LIMITS.jsonDepth }), field: 'body' });
      }
      return sendError(req, res, 422, req.t('err.too_deep', { limit: LIMITS.jsonDepth }));
    }
    if (req.path.startsWith('/api/')) {
      const status = e.type === 'entity.too.large' ? 413 : e.type === 'entity.parse.failed' ? 422 : (e.status ?? 500);
      if (status >= 500) log.error('api.failed', { path: req.path, message: e.message, stack: (err as Error)?.stack });
      else log.warn('api.bad_request', { path: req.path, type: e.type ?? null });
      const error = e.type === 'entity.parse.failed' ? 'invalid_json' : e.type === 'entity.too.large' ? 'too_large' : status >= 500 ? 'internal' : 'bad_request';
      const locale = apiLocale(req);
      const t = translator(locale);
      const message = e.type === 'entity.parse.failed' ? `${t('api.invalid_json')}${locale === 'zh' ? '' : ' '}${jsonProblem(e.message ?? '', locale)}`
        : e.type === 'entity.too.large' ? t('api.too_large') : error;
      return res.status(status).json({ error, message, field: e.type === 'entity.parse.failed' ? 'body' : undefined });
    }
    if (err instanceof UnreadableUpload) {
      log.warn('request.upload_unreadable', { path: req.path, ip: req.ip, reason: err.reason });
      return sendError(req, res, 400, req.t('err.upload_unreadable'));
    }
    if (e.type === 'entity.too.large' || e.code === 'LIMIT_FILE_SIZE') {
      log.warn('request.too_large', { path: req.path, ip: req.ip });
      return sendError(req, res, 413, req.t('err.too_large', { mb: Math.round(config.maxUploadBytes / 1024 / 1024) }));
    }
    if (e.type === 'entity.parse.failed' || (e.status && e.status >= 400 && e.status < 500)) {
      // Not the parser's message: it quotes the body, which may hold a password.
      log.warn('request.bad', { path: req.path, type: e.type ?? null, status: e.status ?? null });
      return sendError(req, res, e.status ?? 400, req.t('err.bad_request'));
    }
    log.error('request.failed', { path: req.path, message: e.message, stack: (err as Error)?.stack });
    if (res.headersSent) return;
    internalError(req, res);
  });

  return app;
}
