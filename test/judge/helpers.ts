// Shared fixtures for the metric pipeline tests: the real judge client against the fake
// OpenAI-compatible server, a router that tells the fake which step is being asked (by the schema
// name in response_format, or in json_object mode by the schema name the client writes into the
// system prompt), and item / prompt builders.

import { createJudgeClient } from '../../server/llm/client.ts';
import type { JudgeClient, JudgeClientConfig } from '../../server/llm/client.ts';
import { defaultPrompts } from '../../server/judge/metrics/index.ts';
import type { Language, MetricDefinition, ScoreResult, ScoringItem } from '../../server/judge/types.ts';
import type { ChatRequestBody, FakeOpenAI } from '../fake-openai/server.ts';
import { reply } from '../fake-openai/server.ts';
import { makeConfig, recordingSleep } from '../llm/helpers.ts';

export { TEST_KEY } from '../llm/helpers.ts';

export function judgeFor(fake: FakeOpenAI, over: Partial<JudgeClientConfig> = {}): JudgeClient {
  return createJudgeClient(makeConfig(fake.baseURL, { maxRetries: 0, ...over }), { sleep: recordingSleep().sleep });
}

export function item(over: Partial<ScoringItem> = {}): ScoringItem {
  return { question: '', answer: '', ground_truth: '', retrieved_contexts: [], reference_contexts: [], ...over };
}

function text(content: unknown): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}

export function systemText(body: ChatRequestBody): string {
  return body.messages.filter((m) => m.role === 'system').map((m) => text(m.content)).join('\n');
}

/** The last user message (the step's input, or the repair request after a bad reply). */
export function userText(body: ChatRequestBody): string {
  return text(body.messages.filter((m) => m.role === 'user').at(-1)?.content);
}

/** The step's input object, parsed back from the first user message ("Input: {...}", "输入：{...}"); {} if it is not JSON. */
export function stepInput(body: ChatRequestBody): Record<string, unknown> {
  const first = text(body.messages.find((m) => m.role === 'user')?.content);
  try {
    return JSON.parse(first.replace(/^(?:Input: |输入：)/, '')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

export function schemaNameOf(body: ChatRequestBody): string {
  const named = body.response_format?.json_schema?.name;
  if (named) return named;
  return /(?:JSON Schema \(|JSON 格式定义（)([\w-]+)[)）]/.exec(systemText(body))?.[1] ?? '';
}

export type StepHandlers = Record<string, (input: Record<string, unknown>, body: ChatRequestBody) => unknown>;

/** Route each chat call to the handler for its schema name; unknown steps get a 400. */
export function routeSteps(fake: FakeOpenAI, handlers: StepHandlers): void {
  fake.onChat((body) => {
    const handler = handlers[schemaNameOf(body)];
    if (!handler) return reply.error(400, { message: `no scripted reply for ${schemaNameOf(body)}` });
    return handler(stepInput(body), body);
  });
}

/** Embeddings from a text → vector table; unknown texts get a 400. */
export function scriptEmbeddings(fake: FakeOpenAI, table: Record<string, number[]>): void {
  fake.onEmbeddings((body) => {
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    if (!inputs.every((t) => table[t] !== undefined)) return reply.error(400, { message: 'unscripted embedding input' });
    return inputs.map((t) => table[t]!);
  });
}

export function chatBodies(fake: FakeOpenAI): ChatRequestBody[] {
  return fake.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body as ChatRequestBody);
}

export async function score(metric: MetricDefinition, it: ScoringItem, judge: JudgeClient, language: Language = 'en'): Promise<ScoreResult> {
  return metric.score(it, { judge, prompts: defaultPrompts(metric, language) });
}
