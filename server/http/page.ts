// Builds the view context of a request and renders error pages in the user's language.
import type { Request, Response } from 'express';
import type { PageContext } from '../../views/layout.tsx';
import { ErrorPage } from '../../views/layout.tsx';
import { h } from 'preact';
import { sendDocument, sendHtml, wantsFragment } from './render.ts';

export function pageContext(req: Request): PageContext {
  const flash = req.session?.flash;
  if (flash) delete req.session.flash;
  return { t: req.t, locale: req.locale, user: req.user, csrfToken: req.csrfToken, path: req.path, url: req.originalUrl, flash };
}

export function sendError(req: Request, res: Response, status: number, message: string): void {
  if (wantsFragment(req)) {
    sendHtml(res, h('div', { class: 'alert', role: 'alert' }, message), status);
    return;
  }
  sendDocument(res, ErrorPage({ ctx: pageContext(req), status, message }), status);
}
