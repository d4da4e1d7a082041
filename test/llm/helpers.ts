// Shared fixtures for the judge-client tests: a Map-backed CallCache, a sleep that records the
// requested waits instead of waiting (so "honoured Retry-After" is asserted on durations, not on
// wall-clock timing) and a config builder pointed at the fake server.

import { z } from 'zod';
import type { CallCache, JudgeClientConfig, JudgeMessage } from '../../server/llm/client.ts';

export const TEST_KEY = 'sk-goldset-test-4f1c9a7b2e8d6053';

export const Verdict = z.object({
  score: z.number().int().min(1).max(5),
  reason: z.string(),
});
export type Verdict = z.infer<typeof Verdict>;

export class MemoryCache implements CallCache {
  readonly map = new Map<string, string>();
  get(key: string): string | undefined { return this.map.get(key); }
  set(key: string, value: string): void { this.map.set(key, value); }
}

export function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => { waits.push(ms); } };
}

export function makeConfig(baseURL: string, over: Partial<JudgeClientConfig> = {}): JudgeClientConfig {
  return {
    baseURL,
    apiKey: TEST_KEY,
    chatModel: 'fake-chat',
    embeddingModel: 'fake-embed',
    temperature: 0,
    timeoutMs: 5_000,
    maxConcurrency: 4,
    structuredOutput: 'json_schema',
    maxRetries: 3,
    // Tiny backoff so retries without a server hint stay fast even with the real sleep.
    retryBaseMs: 1,
    retryCapMs: 4,
    ...over,
  };
}

export function judgeMessages(item = 'The capital of France is Paris.'): JudgeMessage[] {
  return [
    { role: 'system', content: 'You grade answers for factual accuracy.' },
    { role: 'user', content: `Grade this answer from 1 to 5: ${item}` },
  ];
}

export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return dot / Math.sqrt(na * nb);
}
