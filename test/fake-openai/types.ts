// Types and defaults for the fake OpenAI-compatible server (see server.ts): options, recorded
// requests, request bodies as the fake sees them, handler signatures and the control API tests use.

import type { FakeReply } from './replies.ts';

/** Models the fake knows by default: every preset's defaults plus two neutral names. */
export const DEFAULT_FAKE_MODELS = [
  'fake-chat', 'fake-embed', 'gpt-4o-mini', 'text-embedding-3-small',
  'qwen-plus', 'text-embedding-v3', 'llama3.1', 'nomic-embed-text',
];

export interface FakeOpenAIOptions {
  host?: string;
  port?: number;
  /** Expected API key; requests with another bearer token get 401. Undefined accepts any key. */
  apiKey?: string;
  /** Known model ids; anything else gets 404 model_not_found. 'any' accepts every model. */
  models?: string[] | 'any';
  /** Fixed latency added before every answer (benchmarks). */
  latencyMs?: number;
  embeddingDim?: number;
  /** Keep only the most recent N requests in `requests` (default: all). Counts stay exact. */
  maxRecorded?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased header names; authorization is kept verbatim (test-only server). */
  headers: Record<string, string>;
  /** Parsed JSON body, or the raw text when it was not JSON, or undefined when empty. */
  body: unknown;
  at: number;
}

export interface ChatMessageBody { role: string; content?: unknown; [k: string]: unknown }
export interface ChatRequestBody {
  model: string;
  messages: ChatMessageBody[];
  response_format?: { type: string; json_schema?: { name?: string; schema?: unknown; strict?: boolean | null } };
  [k: string]: unknown;
}
export interface EmbeddingsRequestBody { model: string; input: string | string[]; encoding_format?: string; [k: string]: unknown }
export interface HandlerContext { /** 0-based index of this call among calls to the endpoint. */ callIndex: number; request: RecordedRequest }

/** Return a content string, any JSON value (sent as JSON content) or a scripted `reply.*`. */
export type ChatHandler = (body: ChatRequestBody, ctx: HandlerContext) => unknown;
/** Return one vector per input, or a scripted `reply.*`. */
export type EmbeddingsHandler = (body: EmbeddingsRequestBody, ctx: HandlerContext) => number[][] | FakeReply | Promise<number[][] | FakeReply>;

export interface FakeCounts { chat: number; embeddings: number; models: number; total: number; inFlight: number; maxInFlight: number }

export interface FakeOpenAI {
  /** e.g. http://127.0.0.1:PORT/v1 — pass as the client's baseURL. */
  readonly baseURL: string;
  readonly port: number;
  /** Every request received, in arrival order (cleared by reset()). */
  readonly requests: RecordedRequest[];
  /** Replace the default chat responder; call with no argument to restore it. */
  onChat(handler?: ChatHandler): void;
  onEmbeddings(handler?: EmbeddingsHandler): void;
  /** The next N chat calls get these replies in order, then the handler answers again. */
  queueChat(...replies: FakeReply[]): void;
  queueEmbeddings(...replies: FakeReply[]): void;
  setApiKey(key: string | undefined): void;
  setModels(models: string[] | 'any'): void;
  setLatency(ms: number): void;
  counts(): FakeCounts;
  /** Clear requests, counters, queues and handlers; key, models and latency return to the start options. */
  reset(): void;
  close(): Promise<void>;
}
