// goldset's judge client: the one place that talks to an OpenAI-compatible endpoint.
//
// Built on the official `openai` package, with its own retries switched off so that goldset owns
// the policy: every attempt goes through one semaphore (maxConcurrency), one per-attempt timeout,
// one backoff loop (honouring Retry-After) and one set of counters. Structured replies are parsed
// and validated with zod, repaired at most once, and cached (only when valid, and not larger than
// the stored-reply limit of server/limits.ts) by request hash.

import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ZodType } from 'zod';
import { cacheKey } from './cache-key.ts';
import { LIMITS } from '../limits.ts';
import { classifyError, LlmCallError, redact } from './errors.ts';
import type { LlmError } from './errors.ts';
import type { StructuredOutputMode } from './presets.ts';
import { DEFAULT_BACKOFF, realSleep, retryDelayMs } from './retry.ts';
import type { BackoffPolicy } from './retry.ts';
import { createSemaphore } from './semaphore.ts';
import { loadSdk, type Sdk } from './sdk.ts';
import { parseAndValidate, prepareStructured, repairMessages, type ScaffoldLanguage } from './structured.ts';
import type { JudgeMessage } from './structured.ts';

export type { JudgeMessage } from './structured.ts';
export type { LlmError, LlmErrorKind } from './errors.ts';
export { LlmCallError } from './errors.ts';
export { findPreset, presets } from './presets.ts';
export type { EndpointPreset, StructuredOutputMode } from './presets.ts';

export interface JudgeClientConfig {
  baseURL: string;
  /** May be empty for local servers (Ollama, vLLM) that do not check keys. */
  apiKey: string;
  chatModel: string;
  embeddingModel: string;
  temperature: number;
  /** Per attempt, covering connect, headers and body. */
  timeoutMs: number;
  maxConcurrency: number;
  structuredOutput: StructuredOutputMode;
  /** Retries after the first attempt, for 429/5xx/connection errors/timeouts. */
  maxRetries: number;
  /** Backoff base and cap (defaults 500 ms / 30 s); tests shrink them. */
  retryBaseMs?: number;
  retryCapMs?: number;
  /** Give up instead of retrying when Retry-After asks for more than this (default 120 s). */
  maxRetryAfterMs?: number;
  /** Optional max_tokens for judge calls; part of the cache key. */
  maxTokens?: number;
  /** Max texts per embeddings request (default 64). */
  embeddingBatchSize?: number;
}

/** Synchronous so the app can back it with better-sqlite3 without async plumbing. */
export interface CallCache {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

export type JudgeLog = (event: string, fields: Record<string, unknown>) => void;

export interface JudgeClientDeps {
  cache?: CallCache;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  log?: JudgeLog;
}

export interface TokenUsage { prompt: number; completion: number }

export type ChatJsonResult<T> =
  | { ok: true; value: T; raw: string; usage: TokenUsage; cached: boolean; attempts: number }
  | { ok: false; error: LlmError; attempts: number };

/**
 * What a test call found. A failure's `kind` is what the page says in the user's language; `status`
 * and `detail` (LlmError's) are the facts it shows under that; `message` says it all in English, for logs.
 */
export type TestConnectionResult =
  | { ok: true; model: string }
  | { ok: false; kind: 'auth' | 'model_not_found' | 'unreachable' | 'timeout' | 'no_vector' | 'other'; message: string; status?: number; detail?: string };

/** A failed test call, from the error of that call. */
function testFailure(error: LlmError, apiKey: string): TestConnectionResult {
  const { kind, message, status, detail } = error;
  const plain = kind === 'auth' || kind === 'model_not_found' || kind === 'unreachable' || kind === 'timeout' ? kind : 'other';
  return { ok: false, kind: plain, message: redact(message, apiKey), ...(status === undefined ? {} : { status }), ...(detail === undefined ? {} : { detail: redact(detail, apiKey) }) };
}

export interface JudgeStats {
  /** Requests that reached the endpoint, including retries and repair attempts. */
  llm_calls: number;
  cached_calls: number;
  tokens: TokenUsage;
  retries: number;
  failures: number;
}

/** language: the prompt's, which the JSON-schema line (json_object mode) and the repair turn are written in. */
export interface ChatJsonOptions { language?: ScaffoldLanguage }

export interface JudgeClient {
  chatJson<T>(messages: JudgeMessage[], schema: ZodType<T>, schemaName: string, options?: ChatJsonOptions): Promise<ChatJsonResult<T>>;
  /** One vector per text, in order. Throws LlmCallError (with a kind) when the endpoint fails. */
  embed(texts: string[]): Promise<number[][]>;
  testConnection(): Promise<TestConnectionResult>;
  /** One embeddings request for one short text, no retries, no cache: does the embedding model answer? */
  testEmbeddings(): Promise<TestConnectionResult>;
  stats(): JudgeStats;
}

type SendResult<T> = { ok: true; value: T; attempts: number } | { ok: false; error: LlmError; attempts: number };

/** baseURL as safe to show: no userinfo, query or fragment (those can carry secrets). */
function displayURL(baseURL: string): string {
  try {
    const u = new URL(baseURL);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(invalid base URL)';
  }
}

function toParam(m: JudgeMessage): ChatCompletionMessageParam {
  switch (m.role) {
    case 'system': return { role: 'system', content: m.content };
    case 'user': return { role: 'user', content: m.content };
    case 'assistant': return { role: 'assistant', content: m.content };
  }
}

export function createJudgeClient(config: JudgeClientConfig, deps: JudgeClientDeps = {}): JudgeClient {
  const sleep = deps.sleep ?? realSleep;
  const random = deps.random ?? Math.random;
  const log: JudgeLog = deps.log ?? (() => {});
  const cache = deps.cache;
  const where = displayURL(config.baseURL);
  const policy: BackoffPolicy = {
    baseMs: config.retryBaseMs ?? DEFAULT_BACKOFF.baseMs,
    capMs: config.retryCapMs ?? DEFAULT_BACKOFF.capMs,
    maxRetryAfterMs: config.maxRetryAfterMs ?? DEFAULT_BACKOFF.maxRetryAfterMs,
  };
  const timeoutMs = Math.max(1, Math.round(config.timeoutMs));
  const semaphore = createSemaphore(config.maxConcurrency);
  const counters: JudgeStats = { llm_calls: 0, cached_calls: 0, tokens: { prompt: 0, completion: 0 }, retries: 0, failures: 0 };

  // Made on the first call (the package is loaded then: sdk.ts), once per client.
  let made: Promise<{ sdk: Sdk; openai: OpenAI }> | undefined;
  const connect = (): Promise<{ sdk: Sdk; openai: OpenAI }> => made ??= loadSdk().then((sdk) => ({ sdk, openai: new sdk.default({
    baseURL: config.baseURL,
    // The SDK refuses an empty key; local servers ignore it, so any placeholder will do.
    apiKey: config.apiKey || 'no-key',
    // Explicit nulls stop the SDK from picking up OPENAI_* variables from the server's environment.
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    maxRetries: 0,
    timeout: timeoutMs,
    logLevel: 'off',
  }) }));

  /**
   * Run one logical request with goldset's retry policy. Each attempt holds a concurrency slot only
   * while it is on the wire (not while backing off) and is aborted after timeoutMs.
   */
  async function send<T>(op: string, call: (openai: OpenAI, signal: AbortSignal) => Promise<T>, maxRetries = config.maxRetries): Promise<SendResult<T>> {
    const { sdk, openai } = await connect();
    for (let attempt = 0; ; attempt++) {
      const release = await semaphore.acquire();
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => { timedOut = true; controller.abort(); }, timeoutMs);
      let outcome: { ok: true; value: T } | { ok: false; err: unknown };
      try {
        outcome = { ok: true, value: await call(openai, controller.signal) };
      } catch (err) {
        outcome = { ok: false, err };
      } finally {
        clearTimeout(timer);
        release();
      }
      if (outcome.ok) {
        counters.llm_calls++;
        return { ok: true, value: outcome.value, attempts: attempt + 1 };
      }
      const failure = classifyError(outcome.err, { apiKey: config.apiKey, baseURL: where, timedOut, timeoutMs }, sdk);
      if (failure.reached) counters.llm_calls++;
      const delay = failure.retryable && attempt < maxRetries ? retryDelayMs(attempt, failure.retryAfterMs, policy, random) : null;
      if (delay === null) {
        counters.failures++;
        const gaveUpOnHint = failure.retryable && attempt < maxRetries;
        const message = gaveUpOnHint
          ? `${failure.error.message} (endpoint asked to wait ${Math.round((failure.retryAfterMs ?? 0) / 1000)} s; not retrying)`
          : failure.error.message;
        log('llm.failed', { op, kind: failure.error.kind, status: failure.error.status, attempts: attempt + 1, message });
        return { ok: false, error: { ...failure.error, message }, attempts: attempt + 1 };
      }
      counters.retries++;
      log('llm.retry', { op, kind: failure.error.kind, status: failure.error.status, attempt: attempt + 1, delayMs: delay, retryAfterMs: failure.retryAfterMs });
      await sleep(delay);
    }
  }

  interface ChatReply { content: string; usage: TokenUsage; model: string }

  function chatOnce(params: Omit<ChatCompletionCreateParamsNonStreaming, 'model'>, maxRetries?: number): Promise<SendResult<ChatReply>> {
    return send('chat', async (openai, signal) => {
      const completion = await openai.chat.completions.create({ ...params, model: config.chatModel }, { signal, timeout: timeoutMs });
      const usage = { prompt: completion.usage?.prompt_tokens ?? 0, completion: completion.usage?.completion_tokens ?? 0 };
      counters.tokens.prompt += usage.prompt;
      counters.tokens.completion += usage.completion;
      const message = completion.choices[0]?.message;
      // A refusal is model output too: hand it to the parser so it fails (and is kept) as raw text.
      const content = message?.content ?? message?.refusal ?? '';
      return { content, usage, model: completion.model };
    }, maxRetries);
  }

  async function chatJson<T>(messages: JudgeMessage[], schema: ZodType<T>, schemaName: string, options: ChatJsonOptions = {}): Promise<ChatJsonResult<T>> {
    const language = options.language ?? 'en';
    const prepared = prepareStructured(messages, schema, schemaName, config.structuredOutput, language);
    const params = {
      messages: prepared.messages.map(toParam),
      temperature: config.temperature,
      response_format: prepared.responseFormat,
      ...(config.maxTokens !== undefined ? { max_tokens: config.maxTokens } : {}),
    };
    const key = cacheKey({
      kind: 'chat',
      endpoint: where,
      model: config.chatModel,
      messages: prepared.messages,
      temperature: config.temperature,
      response_format: prepared.responseFormat,
      max_tokens: config.maxTokens,
    });

    const hit = cache?.get(key);
    if (hit !== undefined) {
      const parsed = parseAndValidate(hit, schema, language);
      // A stale entry (schema changed under the same name) is ignored rather than trusted.
      if (parsed.ok) {
        counters.cached_calls++;
        return { ok: true, value: parsed.value, raw: hit, usage: { prompt: 0, completion: 0 }, cached: true, attempts: 0 };
      }
    }

    const first = await chatOnce(params);
    if (!first.ok) return first;
    const usage = { ...first.value.usage };
    const parsedFirst = parseAndValidate(first.value.content, schema, language);
    if (parsedFirst.ok) {
      if (first.value.content.length <= LIMITS.judgeReply) cache?.set(key, first.value.content);
      return { ok: true, value: parsedFirst.value, raw: first.value.content, usage, cached: false, attempts: first.attempts };
    }

    log('llm.repair', { kind: parsedFirst.kind, schemaName });
    const repair = await chatOnce({ ...params, messages: repairMessages(prepared.messages, first.value.content, parsedFirst.message, language).map(toParam) });
    const attempts = first.attempts + repair.attempts;
    if (!repair.ok) return { ok: false, error: { ...repair.error, raw: first.value.content }, attempts };
    usage.prompt += repair.value.usage.prompt;
    usage.completion += repair.value.usage.completion;
    const parsedRepair = parseAndValidate(repair.value.content, schema, language);
    if (parsedRepair.ok) {
      // Cached under the original request: the next identical judge call gets the usable answer.
      if (repair.value.content.length <= LIMITS.judgeReply) cache?.set(key, repair.value.content);
      return { ok: true, value: parsedRepair.value, raw: repair.value.content, usage, cached: false, attempts };
    }
    counters.failures++;
    return {
      ok: false,
      error: { kind: parsedRepair.kind, message: `${parsedRepair.message} (after one repair attempt)`, raw: repair.value.content },
      attempts,
    };
  }

  async function embed(texts: string[]): Promise<number[][]> {
    const keyFor = (text: string): string =>
      cacheKey({ kind: 'embedding', endpoint: where, model: config.embeddingModel, input: text, encoding_format: 'float' });
    const out = new Map<string, number[]>();
    const missing: string[] = [];
    for (const text of new Set(texts)) {
      const hit = cache?.get(keyFor(text));
      const vec = hit === undefined ? undefined : (JSON.parse(hit) as unknown);
      if (Array.isArray(vec) && vec.every((x) => typeof x === 'number')) {
        out.set(text, vec);
        counters.cached_calls++;
      } else {
        missing.push(text);
      }
    }
    const batchSize = Math.max(1, config.embeddingBatchSize ?? 64);
    for (let i = 0; i < missing.length; i += batchSize) {
      const batch = missing.slice(i, i + batchSize);
      const res = await send('embeddings', async (openai, signal) => {
        // encoding_format 'float' explicitly: the SDK defaults to base64, which some servers lack.
        const r = await openai.embeddings.create({ model: config.embeddingModel, input: batch, encoding_format: 'float' }, { signal, timeout: timeoutMs });
        counters.tokens.prompt += r.usage?.prompt_tokens ?? 0;
        return r;
      });
      if (!res.ok) throw new LlmCallError(res.error);
      const data = [...res.value.data].sort((a, b) => a.index - b.index);
      if (data.length !== batch.length) {
        throw new LlmCallError({ kind: 'http', message: `Embeddings endpoint returned ${data.length} vectors for ${batch.length} inputs.` });
      }
      batch.forEach((text, j) => {
        const vec = data[j]?.embedding ?? [];
        out.set(text, vec);
        cache?.set(keyFor(text), JSON.stringify(vec));
      });
    }
    return texts.map((t) => out.get(t) ?? []);
  }

  async function testConnection(): Promise<TestConnectionResult> {
    // No retries: the settings page wants a quick, honest answer, not a minute of backoff.
    // No temperature either: some models (o-series, gpt-5) reject anything but their default.
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Reply with the word ok.' }];
    let res = await chatOnce({ messages, max_tokens: 5 }, 0);
    if (!res.ok && res.error.status === 400 && /max_tokens/.test(res.error.message)) {
      // Newer OpenAI models only accept max_completion_tokens; older compatible servers only max_tokens.
      res = await chatOnce({ messages, max_completion_tokens: 16 }, 0);
    }
    if (res.ok) return { ok: true, model: res.value.model || config.chatModel };
    return testFailure(res.error, config.apiKey);
  }

  async function testEmbeddings(): Promise<TestConnectionResult> {
    const res = await send('embeddings', (openai, signal) =>
      openai.embeddings.create({ model: config.embeddingModel, input: ['ok'], encoding_format: 'float' }, { signal, timeout: timeoutMs }), 0);
    if (res.ok) {
      const vector = res.value.data[0]?.embedding;
      if (Array.isArray(vector) && vector.length > 0) return { ok: true, model: res.value.model || config.embeddingModel };
      return { ok: false, kind: 'no_vector', message: 'the embeddings endpoint answered without a vector' };
    }
    return testFailure(res.error, config.apiKey);
  }

  return {
    chatJson,
    embed,
    testConnection,
    testEmbeddings,
    stats: () => ({ ...counters, tokens: { ...counters.tokens } }),
  };
}
