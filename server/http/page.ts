// Builds the view context of a request and renders error pages in the user's language.
import type { Request, Response } from 'express';
import type { PageContext } from '../../views/layout.tsx';
import { ErrorPage } from '../../views/layout.tsx';
import { jsx } from '../../views/jsx-runtime.ts';
import { sendDocument, sendHtml, wantsFragment } from './render.ts';

const contexts = new WeakMap<Request, PageContext>();

/**
 * The view context of a request, built once per request: it takes the flash message out of the
 * session, so a second build would lose it for whichever view renders last (e.g. the layout).
 */
export function pageContext(req: Request): PageContext {
  let ctx = contexts.get(req);
  if (ctx) return ctx;
  const flash = req.session?.flash;
  if (flash) delete req.session.flash;
  ctx = { t: req.t, locale: req.locale, user: req.user, csrfToken: req.csrfToken, path: req.path, url: req.originalUrl, flash };
  contexts.set(req, ctx);
  return ctx;
}

export function sendError(req: Request, res: Response, status: number, message: string): void {
  if (wantsFragment(req)) {
    sendHtml(res, jsx('div', { class: 'alert', role: 'alert', children: message }), status);
    return;
  }
  sendDocument(res, ErrorPage({ ctx: pageContext(req), status, message }), status);
}
