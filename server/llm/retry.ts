// Retry timing for goldset's own retry loop (the openai client's retries are disabled so that every
// attempt is visible to our stats, semaphore and injected sleep).
//
// Backoff is exponential with "full jitter" (AWS architecture blog): delay = random() * min(cap,
// base * 2^attempt). Server hints (Retry-After in seconds or as an HTTP date, retry-after-ms) are a
// floor: we never retry sooner than the endpoint asked.

export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
  /** A server asking us to wait longer than this is treated as a hard failure, not a retry. */
  maxRetryAfterMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 500, capMs: 30_000, maxRetryAfterMs: 120_000 };

/** Minimal header reader so both fetch `Headers` and plain records work. */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | undefined> | undefined | null;

function header(h: HeaderSource, name: string): string | undefined {
  if (!h) return undefined;
  if (typeof (h as { get?: unknown }).get === 'function') {
    return (h as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const rec = h as Record<string, string | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : rec[key];
}

/**
 * Milliseconds the server asked us to wait, or undefined when it gave no usable hint. When both
 * headers are present the larger wins, because either one alone is a promise we must keep.
 */
export function parseRetryAfterMs(headers: HeaderSource, now: number = Date.now()): number | undefined {
  const hints: number[] = [];
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '') {
    const v = Number(ms);
    if (Number.isFinite(v) && v >= 0) hints.push(v);
  }
  const ra = header(headers, 'retry-after');
  if (ra !== undefined && ra.trim() !== '') {
    const trimmed = ra.trim();
    if (/^\d+(\.\d+)?$/.test(trimmed)) {
      hints.push(Number(trimmed) * 1000);
    } else {
      const at = Date.parse(trimmed);
      if (!Number.isNaN(at)) hints.push(Math.max(0, at - now));
    }
  }
  return hints.length > 0 ? Math.max(...hints) : undefined;
}

/** Full-jitter exponential backoff for retry number `attempt` (0 = first retry). */
export function backoffMs(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}

/**
 * How long to sleep before the next retry, or null when the server's hint exceeds what we are
 * willing to wait (better to fail visibly than to stall a whole evaluation run).
 */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | undefined,
  policy: BackoffPolicy,
  random: () => number,
): number | null {
  if (retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs) return null;
  const jitter = backoffMs(attempt, policy, random);
  return retryAfterMs === undefined ? jitter : Math.max(Math.ceil(retryAfterMs), jitter);
}

export const realSleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
