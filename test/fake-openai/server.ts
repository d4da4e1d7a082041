// Fake OpenAI-compatible HTTP server for goldset's tests and benchmarks.
//
// Real HTTP (node:http on 127.0.0.1) so the official `openai` client is exercised end to end:
// headers, status codes, Retry-After, hanging sockets and malformed bodies all go over the wire.
// Deterministic by default (answers are a pure function of the request) and scriptable per test
// through handlers (`onChat`/`onEmbeddings`) and one-shot fault queues (`queueChat`/`queueEmbeddings`).
//
// Standalone: `tsx test/fake-openai/server.ts --port 4010 [--latency-ms 100] [--api-key K] [--any-model]`.

import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { isFakeReply } from './replies.ts';
import type { FakeReply } from './replies.ts';
import { DEFAULT_EMBEDDING_DIM, defaultChatAnswer, embedText, flattenContent, tokenCount, vectorToBase64 } from './synth.ts';
import { DEFAULT_FAKE_MODELS } from './types.ts';
import type {
  ChatHandler, ChatRequestBody, EmbeddingsHandler, EmbeddingsRequestBody, FakeOpenAI, FakeOpenAIOptions, RecordedRequest,
} from './types.ts';

export { reply } from './replies.ts';
export type { FakeReply } from './replies.ts';
export { defaultChatAnswer, embedText } from './synth.ts';
export { DEFAULT_FAKE_MODELS } from './types.ts';
export type * from './types.ts';

function sendJson(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.writableEnded) return;
  const text = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

function openAIError(message: string, type: string, code: string | null, param: string | null = null): unknown {
  return { error: { message, type, param, code } };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const host = options.host ?? '127.0.0.1';
  const dim = options.embeddingDim ?? DEFAULT_EMBEDDING_DIM;
  let apiKey = options.apiKey;
  let models: string[] | 'any' = options.models ?? DEFAULT_FAKE_MODELS;
  let latencyMs = options.latencyMs ?? 0;
  let chatHandler: ChatHandler | undefined;
  let embeddingsHandler: EmbeddingsHandler | undefined;
  let chatQueue: FakeReply[] = [];
  let embeddingsQueue: FakeReply[] = [];
  const maxRecorded = options.maxRecorded ?? Number.POSITIVE_INFINITY;
  const requests: RecordedRequest[] = [];
  const counts = { chat: 0, embeddings: 0, models: 0, total: 0, inFlight: 0, maxInFlight: 0 };
  const timers = new Set<NodeJS.Timeout>();
  let seq = 0;

  const wait = (ms: number): Promise<void> =>
    ms <= 0 ? Promise.resolve() : new Promise((resolve) => {
      const t = setTimeout(() => { timers.delete(t); resolve(); }, ms);
      timers.add(t);
    });

  const knows = (model: unknown): boolean => models === 'any' || (typeof model === 'string' && models.includes(model));
  const modelNotFound = (res: ServerResponse, model: unknown): void =>
    sendJson(res, 404, openAIError(`The model \`${String(model)}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found'));

  const HANDLED = Symbol('handled');

  /**
   * Resolve a scripted reply to the value to render, sending faults (error, hang, drop, malformed
   * body) directly. Delays accumulate with the fixed latency and are waited once. A 'default'
   * reply from the queue means "whatever would have answered" (handler or built-in); from a
   * handler it means the built-in responder, so a handler can return `reply.delay(ms)`.
   */
  async function settle(res: ServerResponse, first: unknown, fromQueue: boolean, handler: (() => Promise<unknown>) | undefined, builtin: () => unknown): Promise<unknown> {
    let answer = first;
    let delay = latencyMs;
    for (let depth = 0; depth < 4 && isFakeReply(answer); depth++) {
      const r: FakeReply = answer;
      if (r.type === 'hang') return HANDLED; // socket stays open until the client or close() ends it
      if (r.type === 'drop') { res.socket?.destroy(); return HANDLED; }
      delay += r.delayMs ?? 0;
      if (r.type === 'default') {
        answer = fromQueue && depth === 0 && handler ? await handler() : builtin();
        continue;
      }
      await wait(delay);
      if (r.type === 'error') {
        sendJson(res, r.status, openAIError(r.message, r.errorType, r.code), r.headers);
        return HANDLED;
      }
      if (r.type === 'malformed-body') {
        if (!res.destroyed) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"id":"chatcmpl-fake","object":"chat.completion","choices":[{"index":0,"message":{"content":"tru');
        }
        return HANDLED;
      }
      return r; // content / json / vectors: the endpoint renders it
    }
    await wait(delay);
    return answer;
  }

  async function handleChat(res: ServerResponse, body: ChatRequestBody, rec: RecordedRequest, callIndex: number): Promise<void> {
    if (!knows(body.model)) return modelNotFound(res, body.model);
    if (!Array.isArray(body.messages)) return sendJson(res, 400, openAIError("Missing required parameter: 'messages'.", 'invalid_request_error', 'missing_required_parameter', 'messages'));
    const handler = chatHandler ? async () => chatHandler?.(body, { callIndex, request: rec }) : undefined;
    const builtin = () => defaultChatAnswer(body);
    const queued = chatQueue.shift();
    const first = queued ?? (handler ? await handler() : builtin());
    const answer = await settle(res, first, queued !== undefined, handler, builtin);
    if (answer === HANDLED) return;
    let content: string;
    if (isFakeReply(answer)) {
      if (answer.type === 'content') content = answer.content;
      else if (answer.type === 'json') content = JSON.stringify(answer.value);
      else content = JSON.stringify(builtin()); // 'vectors' make no sense for chat
    } else {
      content = typeof answer === 'string' ? answer : JSON.stringify(answer);
    }
    const promptTokens = body.messages.reduce((s, m) => s + tokenCount(flattenContent(m.content)), 0);
    const completionTokens = tokenCount(content);
    sendJson(res, 200, {
      id: `chatcmpl-fake-${++seq}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    });
  }

  async function handleEmbeddings(res: ServerResponse, body: EmbeddingsRequestBody, rec: RecordedRequest, callIndex: number): Promise<void> {
    if (!knows(body.model)) return modelNotFound(res, body.model);
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(inputs) || inputs.some((x) => typeof x !== 'string')) {
      return sendJson(res, 400, openAIError("'input' must be a string or an array of strings (fake).", 'invalid_request_error', null, 'input'));
    }
    const handler = embeddingsHandler ? async () => embeddingsHandler?.(body, { callIndex, request: rec }) : undefined;
    const builtin = () => inputs.map((t) => embedText(t, dim));
    const queued = embeddingsQueue.shift();
    const first = queued ?? (handler ? await handler() : builtin());
    const answer = await settle(res, first, queued !== undefined, handler, builtin);
    if (answer === HANDLED) return;
    const vectors = isFakeReply(answer) ? (answer.type === 'vectors' ? answer.vectors : builtin()) : (answer as number[][]);
    const base64 = body.encoding_format === 'base64';
    const promptTokens = inputs.reduce((s, t) => s + tokenCount(t), 0);
    sendJson(res, 200, {
      object: 'list',
      data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: base64 ? vectorToBase64(v) : v })),
      model: body.model,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    });
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://fake').pathname.replace(/\/+$/, '');
    const raw = await readBody(req);
    let body: unknown;
    let bodyOk = true;
    if (raw.length > 0) {
      try { body = JSON.parse(raw); } catch { body = raw; bodyOk = false; }
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    const rec: RecordedRequest = { method, path, headers, body, at: Date.now() };
    requests.push(rec);
    if (requests.length > maxRecorded) requests.shift();
    counts.total++;

    const isChat = method === 'POST' && path === '/v1/chat/completions';
    const isEmb = method === 'POST' && path === '/v1/embeddings';
    const isModels = method === 'GET' && (path === '/v1/models' || path.startsWith('/v1/models/'));
    // Control endpoints for standalone runs (benchmarks read counts between phases); no auth.
    if (method === 'GET' && path === '/__fake/counts') return sendJson(res, 200, api.counts());
    if (method === 'POST' && path === '/__fake/reset') { api.reset(); return sendJson(res, 200, { ok: true }); }
    const callIndex = isChat ? counts.chat++ : isEmb ? counts.embeddings++ : isModels ? counts.models++ : 0;

    if (apiKey !== undefined) {
      const auth = headers['authorization'] ?? '';
      const given = auth.startsWith('Bearer ') ? auth.slice('Bearer '.length) : '';
      if (given !== apiKey) {
        // Deliberately echoes the whole presented key (OpenAI echoes a masked one) so tests prove
        // goldset scrubs keys from error messages even in the worst case.
        const msg = given
          ? `Incorrect API key provided: ${given}. You can find your API key at https://platform.openai.com/account/api-keys.`
          : "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth.";
        return sendJson(res, 401, openAIError(msg, 'invalid_request_error', given ? 'invalid_api_key' : null));
      }
    }
    if ((isChat || isEmb) && (!bodyOk || typeof body !== 'object' || body === null)) {
      return sendJson(res, 400, openAIError('We could not parse the JSON body of your request.', 'invalid_request_error', null));
    }
    if (isChat) return handleChat(res, body as ChatRequestBody, rec, callIndex);
    if (isEmb) return handleEmbeddings(res, body as EmbeddingsRequestBody, rec, callIndex);
    if (isModels) {
      await wait(latencyMs);
      const list = models === 'any' ? DEFAULT_FAKE_MODELS : models;
      const card = (id: string) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'goldset-fake' });
      if (path === '/v1/models') return sendJson(res, 200, { object: 'list', data: list.map(card) });
      const id = decodeURIComponent(path.slice('/v1/models/'.length));
      return knows(id) ? sendJson(res, 200, card(id)) : modelNotFound(res, id);
    }
    return sendJson(res, 404, openAIError(`Invalid URL (${method} ${path})`, 'invalid_request_error', null));
  }

  const server = createServer((req, res) => {
    counts.inFlight++;
    counts.maxInFlight = Math.max(counts.maxInFlight, counts.inFlight);
    // 'close' fires once whether the response finished or the client went away (hang/timeout).
    res.on('close', () => { counts.inFlight--; });
    route(req, res).catch((err: unknown) => {
      sendJson(res, 500, openAIError(`Fake server bug: ${String(err)}`, 'server_error', null));
    });
  });
  // Above undici's keep-alive threshold (2 s in Node 20's fetch): with `Keep-Alive: timeout=1` every
  // call opened a new TCP connection, which real endpoints do not make clients do.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => { server.off('error', reject); resolve(); });
  });
  const port = (server.address() as AddressInfo).port;

  const api: FakeOpenAI = {
    baseURL: `http://${host}:${port}/v1`,
    port,
    requests,
    onChat: (h) => { chatHandler = h; },
    onEmbeddings: (h) => { embeddingsHandler = h; },
    queueChat: (...r) => { chatQueue.push(...r); },
    queueEmbeddings: (...r) => { embeddingsQueue.push(...r); },
    setApiKey: (k) => { apiKey = k; },
    setModels: (m) => { models = m; },
    setLatency: (ms) => { latencyMs = ms; },
    counts: () => ({ ...counts }),
    reset: () => {
      requests.length = 0;
      counts.chat = counts.embeddings = counts.models = counts.total = 0;
      counts.maxInFlight = counts.inFlight;
      apiKey = options.apiKey;
      models = options.models ?? DEFAULT_FAKE_MODELS;
      latencyMs = options.latencyMs ?? 0;
      chatQueue = [];
      embeddingsQueue = [];
      chatHandler = undefined;
      embeddingsHandler = undefined;
    },
    close: () => new Promise<void>((resolve) => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.close(() => resolve());
      // Hanging and keep-alive sockets would otherwise hold close() open forever.
      server.closeAllConnections();
    }),
  };
  return api;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '4010' },
      host: { type: 'string', default: '127.0.0.1' },
      'latency-ms': { type: 'string', default: '0' },
      'api-key': { type: 'string' },
      'any-model': { type: 'boolean', default: false },
    },
  });
  const port = Number(values.port);
  const latencyMs = Number(values['latency-ms']);
  if (!Number.isInteger(port) || port < 0 || !Number.isFinite(latencyMs) || latencyMs < 0) {
    throw new Error('usage: tsx test/fake-openai/server.ts [--port N] [--host H] [--latency-ms N] [--api-key K] [--any-model]');
  }
  const fake = await startFakeOpenAI({
    port,
    host: values.host,
    latencyMs,
    // Long benchmark runs would otherwise keep every request body in memory.
    maxRecorded: 1_000,
    ...(values['api-key'] !== undefined ? { apiKey: values['api-key'] } : {}),
    models: values['any-model'] ? 'any' : DEFAULT_FAKE_MODELS,
  });
  console.log(`fake OpenAI listening on ${fake.baseURL} (latency ${latencyMs} ms; counts at /__fake/counts)`);
  const stop = (): void => { void fake.close().then(() => process.exit(0)); };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => { console.error(err); process.exit(1); });
}
