// Pure helpers behind the judge client: Retry-After parsing, full-jitter backoff, the semaphore,
// canonical cache keys, strict-schema detection, lenient JSON extraction and key redaction.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cacheKey, canonicalJson } from '../../server/llm/cache-key.ts';
import { redact } from '../../server/llm/errors.ts';
import { findPreset, presets } from '../../server/llm/presets.ts';
import { backoffMs, DEFAULT_BACKOFF, parseRetryAfterMs, retryDelayMs } from '../../server/llm/retry.ts';
import { createSemaphore } from '../../server/llm/semaphore.ts';
import { extractJson, isStrictCompatible, toJsonSchema } from '../../server/llm/structured.ts';

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads seconds, HTTP dates and retry-after-ms, taking the larger hint', () => {
    expect(parseRetryAfterMs({ 'Retry-After': '2' }, now)).toBe(2000);
    expect(parseRetryAfterMs({ 'retry-after': '1.5' }, now)).toBe(1500);
    expect(parseRetryAfterMs({ 'retry-after': 'Wed, 01 Jan 2025 00:00:07 GMT' }, now)).toBe(7000);
    expect(parseRetryAfterMs({ 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }, now)).toBe(0);
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '250' }), now)).toBe(250);
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '1' }), now)).toBe(1000);
    expect(parseRetryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
  });
});

describe('backoff', () => {
  it('is full jitter under an exponential ceiling capped at capMs', () => {
    const p = { baseMs: 500, capMs: 30_000, maxRetryAfterMs: 120_000 };
    expect(backoffMs(0, p, () => 0.999)).toBe(499);
    expect(backoffMs(3, p, () => 0.5)).toBe(2000);
    expect(backoffMs(20, p, () => 0.999)).toBe(29_970);
    expect(backoffMs(5, p, () => 0)).toBe(0);
    expect(DEFAULT_BACKOFF).toMatchObject({ baseMs: 500, capMs: 30_000 });
  });
  it('never waits less than the server asked, and refuses absurd waits', () => {
    const p = { baseMs: 500, capMs: 30_000, maxRetryAfterMs: 60_000 };
    expect(retryDelayMs(0, 5_000, p, () => 0)).toBe(5_000);
    expect(retryDelayMs(6, 100, p, () => 0.5)).toBe(15_000); // 500 * 2^6 capped at 30 s, halved
    expect(retryDelayMs(0, 61_000, p, () => 0)).toBeNull();
  });
});

describe('semaphore', () => {
  it('caps concurrency and hands slots over in FIFO order', async () => {
    const sem = createSemaphore(2);
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(Array.from({ length: 6 }, async (_, i) => {
      const release = await sem.acquire();
      active++;
      peak = Math.max(peak, active);
      order.push(i);
      await new Promise((r) => setTimeout(r, 5));
      active--;
      release();
      release(); // idempotent
    }));
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(sem.inFlight).toBe(0);
    expect(() => createSemaphore(0)).toThrow(RangeError);
  });
});

describe('cache keys', () => {
  it('ignore object key order but not values', () => {
    expect(canonicalJson({ b: 1, a: [{ y: 2, x: 1 }], c: undefined })).toBe('{"a":[{"x":1,"y":2}],"b":1}');
    const k1 = cacheKey({ kind: 'chat', model: 'm', temperature: 0, messages: [{ role: 'user', content: 'x' }] });
    const k2 = cacheKey({ messages: [{ content: 'x', role: 'user' }], temperature: 0, model: 'm', kind: 'chat' });
    const k3 = cacheKey({ kind: 'chat', model: 'm', temperature: 0.1, messages: [{ role: 'user', content: 'x' }] });
    expect(k1).toBe(k2);
    expect(k1).not.toBe(k3);
    expect(k1).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('structured helpers', () => {
  it('detects strict-compatible schemas', () => {
    expect(isStrictCompatible(toJsonSchema(z.object({ a: z.string(), b: z.array(z.object({ c: z.number() })) })))).toBe(true);
    expect(isStrictCompatible(toJsonSchema(z.object({ a: z.string().optional() })))).toBe(false);
    expect(toJsonSchema(z.object({ a: z.string() }))).not.toHaveProperty('$schema');
  });
  it('extracts JSON from bare or fenced replies only', () => {
    expect(extractJson(' {"a":1} ')).toEqual({ ok: true, value: { a: 1 } });
    expect(extractJson('```json\n{"a":1}\n```')).toEqual({ ok: true, value: { a: 1 } });
    expect(extractJson('Sure! {"a":1}').ok).toBe(false);
    expect(extractJson('').ok).toBe(false);
  });
});

describe('redact', () => {
  it('removes the configured key and sk-style secrets', () => {
    expect(redact('bad key sk-abc123456789 here', 'sk-abc123456789')).toBe('bad key [redacted] here');
    expect(redact('Incorrect API key provided: sk-proj-Ab***Yz9.', 'other')).not.toContain('sk-proj');
    expect(redact('token mysecretvalue', 'mysecretvalue')).toBe('token [redacted]');
  });
});

describe('presets', () => {
  it('has the four documented endpoints', () => {
    expect(presets.map((p) => p.id)).toEqual(['openai', 'dashscope', 'ollama', 'vllm']);
    expect(findPreset('openai')).toMatchObject({ baseURL: 'https://api.openai.com/v1', chatModel: 'gpt-4o-mini', embeddingModel: 'text-embedding-3-small' });
    expect(findPreset('dashscope')).toMatchObject({ baseURL: 'https://dashscope.aliyuncs.com/compatible-mode/v1', chatModel: 'qwen-plus', embeddingModel: 'text-embedding-v3' });
    expect(findPreset('ollama')).toMatchObject({ baseURL: 'http://localhost:11434/v1', chatModel: 'llama3.1', embeddingModel: 'nomic-embed-text', structuredOutput: 'json_object' });
    expect(findPreset('vllm')).toMatchObject({ baseURL: 'http://localhost:8000/v1', chatModel: '' });
  });
});
