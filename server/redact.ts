// Secrets out of text that is logged, audited or shown: invitation links (and any other
// token-bearing path), goldset API tokens, bearer tokens, provider keys, and credentials inside
// URLs (user:password@, api-key=… and the like in the query). The logger runs every string it
// writes through redactText, so a new log call cannot leak one by accident; the judge settings run
// base URLs through redactUrl before they are audited or rendered.

const REDACTED = '[redacted]';

/** Query parameters that carry credentials in the URLs of OpenAI-compatible endpoints and proxies. */
const SECRET_PARAM = /^(api[-_]?key|key|token|access[-_]?token|auth|authorization|secret|client[-_]?secret|password|pass|pwd|sig|signature|code)$/i;

const PATTERNS: [RegExp, string][] = [
  // Paths whose last part is a secret: /invite/<token>.
  [/(\/invite\/)[^/?#\s"'<>]+/g, `$1${REDACTED}`],
  // user:password@ (or a lone user@ that is a token) in any URL.
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^/?#\s"'<>@]+@/gi, `$1${REDACTED}@`],
  // ?api-key=…, &token=…
  [/([?&;])([^=&#\s"'<>]+)=([^&#\s"'<>]*)/g, ''],
  // goldset API tokens, provider keys, bearer credentials.
  [/\bgs_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{8,}/g, `gs_${REDACTED}`],
  [/\b(sk|pk|rk)-[A-Za-z0-9_\-*.]{6,}/g, REDACTED],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${REDACTED}`],
];

/** Text with every secret pattern above replaced by [redacted]. */
export function redactText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of PATTERNS) {
    out = replacement === ''
      ? out.replace(pattern, (m, sep: string, name: string) => (SECRET_PARAM.test(name) ? `${sep}${name}=${REDACTED}` : m))
      : out.replace(pattern, replacement);
  }
  return out;
}

/** Whether a URL carries credentials (userinfo, or a query parameter named like a key). */
export function urlHasCredentials(url: string): boolean {
  return redactText(url) !== url;
}

/** A base URL as safe to log, audit and show: userinfo and credential parameters replaced by [redacted]. */
export function redactUrl(url: string): string {
  return redactText(url);
}

/** Any value with its strings redacted, objects and arrays walked (to a depth; deeper parts are dropped). */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 6) return '[…]';
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  if (value instanceof Error) return redactText(value.message);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactValue(v, depth + 1);
  return out;
}
