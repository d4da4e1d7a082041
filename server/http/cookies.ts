// The few cookies goldset sets besides the session's: read one by name, write one with the app's flags.
import type { Request, Response } from 'express';

/** The value of one cookie of the request, or undefined. */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.get('Cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try { return decodeURIComponent(part.slice(eq + 1).trim()); } catch { return undefined; }
    }
  }
  return undefined;
}

/** A cookie for the whole site: HttpOnly, SameSite=Lax, Secure behind HTTPS, kept for `maxAgeMs`. */
export function writeCookie(res: Response, name: string, value: string, opts: { secure: boolean; maxAgeMs: number }): void {
  res.cookie(name, value, { httpOnly: true, sameSite: 'lax', secure: opts.secure, path: '/', maxAge: opts.maxAgeMs });
}
