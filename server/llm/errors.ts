// Translate whatever the openai client throws into goldset's small set of failure kinds, decide
// whether a retry can help, and scrub the API key from every message before it leaves this module.

import type { APIError } from 'openai';
import type { Sdk } from './sdk.ts';
import { parseRetryAfterMs } from './retry.ts';
import { clip } from '../limits.ts';

export type LlmErrorKind = 'unparseable' | 'schema' | 'http' | 'timeout' | 'auth' | 'model_not_found' | 'unreachable';

export interface LlmError {
  kind: LlmErrorKind;
  message: string;
  /** Model output kept for unparseable/schema failures so the UI can show what came back. */
  raw?: string;
  /** HTTP status when the endpoint answered with one. */
  status?: number;
  /**
   * The technical fact behind `message`, in no human language of goldset's: what the endpoint itself
   * said (redacted), the socket's error code, or the time waited. Pages put it under their own words.
   */
  detail?: string;
}

/** Thrown by `embed()` (which returns plain vectors) so callers still get a typed kind. */
export class LlmCallError extends Error {
  readonly kind: LlmErrorKind;
  readonly status: number | undefined;
  constructor(error: LlmError) {
    super(error.message);
    this.name = 'LlmCallError';
    this.kind = error.kind;
    this.status = error.status;
  }
}

export interface ClassifiedFailure {
  error: LlmError;
  retryable: boolean;
  /** Server-requested wait, from Retry-After / retry-after-ms. */
  retryAfterMs: number | undefined;
  /** False when the request never reached the endpoint (refused connection, DNS failure). */
  reached: boolean;
}

/**
 * Remove the API key (and anything shaped like an OpenAI-style secret) from text. Endpoints echo
 * presented keys in 401 messages, so this runs on every message we build from a server reply.
 */
export function redact(text: string, apiKey: string): string {
  let out = text;
  if (apiKey.length >= 4) out = out.split(apiKey).join('[redacted]');
  return out.replace(/\b(sk|pk|rk)-[A-Za-z0-9_\-*.]{6,}/g, '[redacted]');
}

/** An error and the causes it wraps, outermost first (at most four deep). */
function causeChain(err: unknown): { code?: unknown; message?: unknown }[] {
  const chain: { code?: unknown; message?: unknown }[] = [];
  for (let cur: unknown = err; chain.length < 4 && cur && typeof cur === 'object'; cur = (cur as { cause?: unknown }).cause) chain.push(cur);
  return chain;
}

/** Why a connection failed: the socket's error code, else the innermost message ("bad port" under undici's "fetch failed"). */
function connectionFailure(err: unknown): { code?: string; why?: string } {
  // undici wraps the socket error: TypeError('fetch failed', { cause: Error{ code: 'ECONNREFUSED' } }).
  const chain = causeChain(err);
  const code = chain.map((e) => e.code).find((c): c is string => typeof c === 'string' && /^E[A-Z_]+$|^UND_ERR/.test(c));
  const why = code ?? chain.map((e) => e.message).filter((m): m is string => typeof m === 'string' && m !== '').at(-1);
  return { ...(code ? { code } : {}), ...(why ? { why } : {}) };
}

function isModelNotFound(err: APIError): boolean {
  if (err.code === 'model_not_found') return true;
  // Ollama: 'model "x" not found, try pulling it first'; vLLM: 'The model `x` does not exist.'
  return err.status === 404 && /model/i.test(err.message);
}

/** `sdk` is the loaded openai package (server/llm/sdk.ts): its error classes say what failed. */
export function classifyError(err: unknown, ctx: { apiKey: string; baseURL: string; timedOut: boolean; timeoutMs: number }, sdk: Sdk): ClassifiedFailure {
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = sdk;
  const clean = (s: string): string => clip(redact(s, ctx.apiKey), 2000).text;
  const timeout = (): ClassifiedFailure => ({
    error: { kind: 'timeout', message: `No answer from ${ctx.baseURL} within ${ctx.timeoutMs} ms.`, detail: `${ctx.timeoutMs} ms` },
    retryable: true,
    retryAfterMs: undefined,
    reached: true,
  });

  // Our own per-call timer aborted the request; whatever the client threw is a consequence of it.
  if (ctx.timedOut || err instanceof APIConnectionTimeoutError || err instanceof APIUserAbortError) return timeout();
  if (err instanceof APIConnectionError) {
    const { code, why } = connectionFailure(err);
    return {
      error: { kind: 'unreachable', message: `Could not connect to ${ctx.baseURL}${code ? ` (${code})` : ''}.`, ...(why ? { detail: clean(why) } : {}) },
      retryable: true,
      retryAfterMs: undefined,
      reached: false,
    };
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    const status = err.status;
    const detail = clean(err.message);
    // What the endpoint said, without the status the client's message begins with ("401 Incorrect API key…").
    const said = detail.startsWith(`${status} `) ? detail.slice(String(status).length + 1) : detail;
    if (status === 401 || status === 403) {
      return { error: { kind: 'auth', status, message: `The endpoint rejected the API key (HTTP ${status}): ${detail}`, detail: said }, retryable: false, retryAfterMs: undefined, reached: true };
    }
    if (isModelNotFound(err)) {
      return { error: { kind: 'model_not_found', status, message: `Unknown model (HTTP ${status}): ${detail}`, detail: said }, retryable: false, retryAfterMs: undefined, reached: true };
    }
    const retryable = status === 408 || status === 429 || status >= 500;
    return {
      error: { kind: 'http', status, message: `HTTP ${status} from ${ctx.baseURL}: ${detail}`, detail: said },
      retryable,
      retryAfterMs: retryable ? parseRetryAfterMs(err.headers) : undefined,
      reached: true,
    };
  }
  if (err instanceof SyntaxError) {
    // 200 with a body that is not JSON: a flaky proxy or a truncated response. Worth retrying.
    return { error: { kind: 'http', message: `Malformed response body from ${ctx.baseURL}: ${clean(err.message)}`, detail: clean(err.message) }, retryable: true, retryAfterMs: undefined, reached: true };
  }
  if (err instanceof Error && err.name === 'AbortError') return timeout();
  const message = err instanceof Error ? err.message : String(err);
  return { error: { kind: 'http', message: `Unexpected error calling ${ctx.baseURL}: ${clean(message)}`, detail: clean(message) }, retryable: false, retryAfterMs: undefined, reached: true };
}
