// One place decides whether a request gets a full page or an htmx fragment, and sends a view's HTML.
import type { Request, Response } from 'express';
import { renderHtml, type Html } from '../../views/jsx-runtime.ts';

/** htmx asks for fragments; history restores and plain navigation want the whole page. */
export function wantsFragment(req: Request): boolean {
  return req.get('HX-Request') === 'true' && req.get('HX-History-Restore-Request') !== 'true';
}

export function sendHtml(res: Response, node: Html | null, status = 200): void {
  sendHtmlText(res, renderHtml(node), status);
}

/** As sendHtml, for HTML rendered elsewhere (by the labelling thread, from a view). */
export function sendHtmlText(res: Response, html: string, status = 200): void {
  res.status(status).vary('HX-Request').type('html').send(html);
}

export function sendDocument(res: Response, node: Html | null, status = 200): void {
  res.status(status).vary('HX-Request').type('html').send('<!doctype html>' + renderHtml(node));
}

/** Full page for normal requests, the named fragment for htmx ones. */
export function sendPageOrFragment(req: Request, res: Response, page: () => Html | null, fragment: () => Html | null, status = 200): void {
  if (wantsFragment(req)) sendHtml(res, fragment(), status);
  else sendDocument(res, page(), status);
}

/** After a successful form post: 303 for browsers, HX-Redirect for htmx (which follows redirects itself too). */
export function redirectAfterPost(req: Request, res: Response, to: string): void {
  if (wantsFragment(req)) res.set('HX-Redirect', to).status(204).end();
  else res.redirect(303, to);
}
