// Scripted replies for the fake OpenAI-compatible server.
//
// A test scripts the fake by returning (from a handler) or queueing one of these replies. They are
// branded with a symbol so a handler can also return a plain JSON object as "the model's answer"
// without it being mistaken for a fault description.

const SCRIPTED = Symbol.for('goldset.fake-openai.reply');

export type FakeReply =
  /** 200 with this exact message content (may be invalid JSON on purpose). */
  | { readonly [SCRIPTED]: true; type: 'content'; content: string; delayMs?: number }
  /** 200 with JSON.stringify(value) as message content (e.g. a wrong-schema object). */
  | { readonly [SCRIPTED]: true; type: 'json'; value: unknown; delayMs?: number }
  /** 200 embeddings response with these vectors (one per input). */
  | { readonly [SCRIPTED]: true; type: 'vectors'; vectors: number[][]; delayMs?: number }
  /** OpenAI-style error JSON with this status and optional extra headers (e.g. Retry-After). */
  | {
      readonly [SCRIPTED]: true;
      type: 'error';
      status: number;
      message: string;
      code: string | null;
      errorType: string;
      headers: Record<string, string>;
      delayMs?: number;
    }
  /** Never answer; the socket stays open until the client gives up or the server closes. */
  | { readonly [SCRIPTED]: true; type: 'hang' }
  /** 200 with content-type application/json but a truncated, unparseable body. */
  | { readonly [SCRIPTED]: true; type: 'malformed-body'; delayMs?: number }
  /** Destroy the socket without any response (connection reset mid-request). */
  | { readonly [SCRIPTED]: true; type: 'drop' }
  /** Run the default responder for this endpoint, after a delay. */
  | { readonly [SCRIPTED]: true; type: 'default'; delayMs?: number };

export function isFakeReply(x: unknown): x is FakeReply {
  return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[SCRIPTED] === true;
}

function errorTypeFor(status: number): string {
  if (status === 401) return 'invalid_request_error';
  if (status === 404) return 'invalid_request_error';
  if (status === 429) return 'requests';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** Constructors for scripted replies; use with `fake.queueChat(...)` or return from a handler. */
export const reply = {
  content: (content: string): FakeReply => ({ [SCRIPTED]: true, type: 'content', content }),
  json: (value: unknown): FakeReply => ({ [SCRIPTED]: true, type: 'json', value }),
  vectors: (vectors: number[][]): FakeReply => ({ [SCRIPTED]: true, type: 'vectors', vectors }),
  error: (
    status: number,
    opts: { message?: string; code?: string | null; type?: string; headers?: Record<string, string> } = {},
  ): FakeReply => ({
    [SCRIPTED]: true,
    type: 'error',
    status,
    message: opts.message ?? `Fake error with status ${status}`,
    code: opts.code ?? null,
    errorType: opts.type ?? errorTypeFor(status),
    headers: opts.headers ?? {},
  }),
  /** 429 with `Retry-After: <seconds>` (a number) or any literal value (e.g. an HTTP date). */
  rateLimit: (retryAfter?: number | string, opts: { retryAfterMs?: number } = {}): FakeReply => {
    const headers: Record<string, string> = {};
    if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
    if (opts.retryAfterMs !== undefined) headers['retry-after-ms'] = String(opts.retryAfterMs);
    return reply.error(429, { message: 'Rate limit reached (fake).', code: 'rate_limit_exceeded', headers });
  },
  serverError: (status: 500 | 502 | 503 | 504 = 500): FakeReply =>
    reply.error(status, { message: `The server had an error (fake ${status}).` }),
  hang: (): FakeReply => ({ [SCRIPTED]: true, type: 'hang' }),
  malformedBody: (): FakeReply => ({ [SCRIPTED]: true, type: 'malformed-body' }),
  drop: (): FakeReply => ({ [SCRIPTED]: true, type: 'drop' }),
  /** Delay `inner` (default: the endpoint's default responder) by `ms`. */
  delay: (ms: number, inner?: FakeReply): FakeReply => {
    const base: FakeReply = inner ?? { [SCRIPTED]: true, type: 'default' };
    if (base.type === 'hang' || base.type === 'drop') return base;
    return { ...base, delayMs: ms };
  },
};
