// Judge client failure handling against the fake server with the real openai SDK: retries with
// Retry-After honoured (asserted on the injected sleep's recorded waits), timeouts on hanging
// connections, auth / unknown model / unreachable kinds, the concurrency cap, and key redaction.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createJudgeClient, LlmCallError } from '../../server/llm/client.ts';
import { reply, startFakeOpenAI } from '../fake-openai/server.ts';
import type { FakeOpenAI } from '../fake-openai/server.ts';
import { judgeMessages, makeConfig, recordingSleep, TEST_KEY, Verdict } from './helpers.ts';

let fake: FakeOpenAI;
beforeAll(async () => { fake = await startFakeOpenAI({ apiKey: TEST_KEY }); });
afterAll(async () => { await fake.close(); });
beforeEach(() => { fake.reset(); });

async function closedPortURL(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

describe('retries', () => {
  it('429 with Retry-After (seconds) waits at least that long, then succeeds', async () => {
    fake.queueChat(reply.rateLimit(2));
    const { sleep, waits } = recordingSleep();
    const client = createJudgeClient(makeConfig(fake.baseURL), { sleep, random: () => 0 });
    const res = await client.chatJson(judgeMessages(), Verdict, 'verdict');
    expect(res).toMatchObject({ ok: true, attempts: 2 });
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(2_000);
    expect(fake.counts().chat).toBe(2);
    expect(client.stats()).toMatchObject({ llm_calls: 2, retries: 1 });
  });

  it('honours retry-after-ms and HTTP-date Retry-After', async () => {
    fake.queueChat(reply.rateLimit(undefined, { retryAfterMs: 1_500 }), reply.rateLimit(new Date(Date.now() + 5_000).toUTCString()));
    const { sleep, waits } = recordingSleep();
    const client = createJudgeClient(makeConfig(fake.baseURL), { sleep, random: () => 0.99 });
    expect((await client.chatJson(judgeMessages(), Verdict, 'verdict')).ok).toBe(true);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(1_500);
    // The HTTP date has one-second resolution, so at least 4 s of the 5 s remain.
    expect(waits[1]).toBeGreaterThanOrEqual(3_900);
  });

  it('does not retry when Retry-After exceeds maxRetryAfterMs', async () => {
    fake.queueChat(reply.rateLimit(600));
    const { sleep, waits } = recordingSleep();
    const client = createJudgeClient(makeConfig(fake.baseURL, { maxRetryAfterMs: 60_000 }), { sleep });
    const res = await client.chatJson(judgeMessages(), Verdict, 'verdict');
    expect(res).toMatchObject({ ok: false, error: { kind: 'http', status: 429 } });
    expect(waits).toHaveLength(0);
    expect(fake.counts().chat).toBe(1);
  });

  it('500 then success', async () => {
    fake.queueChat(reply.serverError(500));
    const { sleep, waits } = recordingSleep();
    const client = createJudgeClient(makeConfig(fake.baseURL), { sleep });
    expect(await client.chatJson(judgeMessages(), Verdict, 'verdict')).toMatchObject({ ok: true, attempts: 2 });
    expect(waits).toHaveLength(1);
    expect(fake.counts().chat).toBe(2);
  });

  it('gives up after maxRetries with exponential full-jitter waits under the cap', async () => {
    fake.queueChat(reply.serverError(503), reply.serverError(503), reply.serverError(503));
    const { sleep, waits } = recordingSleep();
    const client = createJudgeClient(makeConfig(fake.baseURL, { maxRetries: 2, retryBaseMs: 100, retryCapMs: 250 }), { sleep, random: () => 0.999 });
    const res = await client.chatJson(judgeMessages(), Verdict, 'verdict');
    expect(res).toMatchObject({ ok: false, error: { kind: 'http', status: 503 }, attempts: 3 });
    expect(waits).toEqual([99, 199]);
    expect(fake.counts().chat).toBe(3);
    expect(client.stats()).toMatchObject({ llm_calls: 3, retries: 2, failures: 1 });
  });

  it('does not retry 400', async () => {
    fake.queueChat(reply.error(400, { message: 'Invalid schema for response_format' }));
    const { sleep, waits } = recordingSleep();
    const client = createJudgeClient(makeConfig(fake.baseURL), { sleep });
    expect(await client.chatJson(judgeMessages(), Verdict, 'verdict')).toMatchObject({ ok: false, error: { kind: 'http', status: 400 } });
    expect(waits).toHaveLength(0);
    expect(fake.counts().chat).toBe(1);
  });

  it('a malformed response body is retried like a transient server error', async () => {
    fake.queueChat(reply.malformedBody());
    const { sleep } = recordingSleep();
    const client = createJudgeClient(makeConfig(fake.baseURL), { sleep });
    expect(await client.chatJson(judgeMessages(), Verdict, 'verdict')).toMatchObject({ ok: true, attempts: 2 });
  });

  it('retries embeddings too', async () => {
    fake.queueEmbeddings(reply.rateLimit(1));
    const { sleep, waits } = recordingSleep();
    const client = createJudgeClient(makeConfig(fake.baseURL), { sleep });
    expect(await client.embed(['x'])).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(1_000);
  });
});

describe('timeouts', () => {
  it('a hanging connection becomes a timeout error', async () => {
    fake.queueChat(reply.hang());
    const client = createJudgeClient(makeConfig(fake.baseURL, { timeoutMs: 150, maxRetries: 0 }));
    const res = await client.chatJson(judgeMessages(), Verdict, 'verdict');
    expect(res).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    expect(client.stats().llm_calls).toBe(1);
  });

  it('a timeout is retried; the next attempt can succeed', async () => {
    fake.queueChat(reply.hang());
    const { sleep, waits } = recordingSleep();
    const client = createJudgeClient(makeConfig(fake.baseURL, { timeoutMs: 150, maxRetries: 1 }), { sleep });
    expect(await client.chatJson(judgeMessages(), Verdict, 'verdict')).toMatchObject({ ok: true, attempts: 2 });
    expect(waits).toHaveLength(1);
  });

  it('a slow answer beyond the timeout is a timeout too', async () => {
    fake.queueChat(reply.delay(1_000, reply.json({ score: 1, reason: 'late' })));
    const client = createJudgeClient(makeConfig(fake.baseURL, { timeoutMs: 100, maxRetries: 0 }));
    expect(await client.chatJson(judgeMessages(), Verdict, 'verdict')).toMatchObject({ ok: false, error: { kind: 'timeout' } });
  });
});

describe('endpoint problems map to plain kinds', () => {
  it('bad key -> auth, not retried', async () => {
    const { sleep, waits } = recordingSleep();
    const badKey = 'sk-wrong-9d8c7b6a5f4e3d2c1b0a';
    const client = createJudgeClient(makeConfig(fake.baseURL, { apiKey: badKey }), { sleep });
    const res = await client.chatJson(judgeMessages(), Verdict, 'verdict');
    expect(res).toMatchObject({ ok: false, error: { kind: 'auth', status: 401 } });
    expect(waits).toHaveLength(0);
    expect(fake.counts().chat).toBe(1);
    const conn = await client.testConnection();
    expect(conn).toMatchObject({ ok: false, kind: 'auth', status: 401 });
    // The endpoint's own words, without the client's status prefix and without the key it echoed.
    expect(conn.ok === false && conn.detail).toMatch(/^[^\d]/);
    expect(JSON.stringify(conn)).not.toContain(badKey);
    await expect(client.embed(['x'])).rejects.toSatisfy((e: unknown) => e instanceof LlmCallError && e.kind === 'auth');
  });

  it('unknown model -> model_not_found', async () => {
    const client = createJudgeClient(makeConfig(fake.baseURL, { chatModel: 'gpt-9-imaginary', embeddingModel: 'embed-imaginary' }));
    expect(await client.chatJson(judgeMessages(), Verdict, 'verdict')).toMatchObject({ ok: false, error: { kind: 'model_not_found', status: 404 } });
    expect(await client.testConnection()).toMatchObject({ ok: false, kind: 'model_not_found', status: 404 });
    await expect(client.embed(['x'])).rejects.toSatisfy((e: unknown) => e instanceof LlmCallError && e.kind === 'model_not_found');
    expect(fake.counts().chat).toBe(2);
  });

  it('closed port -> unreachable (retried, but nothing counted as an LLM call)', async () => {
    const baseURL = await closedPortURL();
    const { sleep, waits } = recordingSleep();
    const client = createJudgeClient(makeConfig(baseURL, { maxRetries: 2 }), { sleep });
    const res = await client.chatJson(judgeMessages(), Verdict, 'verdict');
    expect(res).toMatchObject({ ok: false, error: { kind: 'unreachable' }, attempts: 3 });
    expect(waits).toHaveLength(2);
    expect(client.stats().llm_calls).toBe(0);
    expect(await client.testConnection()).toMatchObject({ ok: false, kind: 'unreachable', detail: 'ECONNREFUSED' });
  });

  it('testConnection on a hanging endpoint -> timeout', async () => {
    fake.queueChat(reply.hang());
    const client = createJudgeClient(makeConfig(fake.baseURL, { timeoutMs: 100 }));
    expect(await client.testConnection()).toMatchObject({ ok: false, kind: 'timeout', detail: '100 ms' });
  });
});

describe('concurrency', () => {
  it('never has more than maxConcurrency requests in flight, chat and embeddings combined', async () => {
    fake.onChat(() => reply.delay(40));
    fake.onEmbeddings(() => reply.delay(40));
    const client = createJudgeClient(makeConfig(fake.baseURL, { maxConcurrency: 3 }));
    const chats = Array.from({ length: 8 }, (_, i) => client.chatJson(judgeMessages(`item ${i}`), Verdict, 'verdict'));
    const embeds = Array.from({ length: 4 }, (_, i) => client.embed([`text ${i}`]));
    const results = await Promise.all(chats);
    await Promise.all(embeds);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(fake.counts().maxInFlight).toBe(3);
    expect(fake.counts().total).toBe(12);
  });
});

describe('API key hygiene', () => {
  it('never appears in error messages, testConnection results or log lines', async () => {
    const secret = 'sk-proj-SUPERSECRET-0123456789abcdef';
    const lines: string[] = [];
    const log = (event: string, fields: Record<string, unknown>): void => { lines.push(`${event} ${JSON.stringify(fields)}`); };
    const { sleep } = recordingSleep();
    const texts: string[] = [];
    const collect = (r: { ok: boolean; error?: { message: string } }): void => { if (r.error) texts.push(r.error.message); };

    // 401: the fake echoes the presented key verbatim in its message.
    const bad = createJudgeClient(makeConfig(fake.baseURL, { apiKey: secret, maxRetries: 1 }), { sleep, log });
    collect(await bad.chatJson(judgeMessages(), Verdict, 'verdict'));
    texts.push(JSON.stringify(await bad.testConnection()));
    await bad.embed(['x']).catch((e: unknown) => texts.push(String(e), (e as Error).message));

    // Other failures with the same key configured.
    fake.setApiKey(secret);
    fake.queueChat(reply.serverError(500), reply.serverError(500), reply.error(400, { message: `bad request from ${secret}` }));
    const c = createJudgeClient(makeConfig(fake.baseURL, { apiKey: secret, maxRetries: 1, chatModel: 'nope' }), { sleep, log });
    collect(await c.chatJson(judgeMessages(), Verdict, 'verdict'));
    const ok = createJudgeClient(makeConfig(fake.baseURL, { apiKey: secret, maxRetries: 1 }), { sleep, log });
    collect(await ok.chatJson(judgeMessages(), Verdict, 'verdict'));
    collect(await ok.chatJson(judgeMessages('x'), Verdict, 'verdict'));
    const down = createJudgeClient(makeConfig(await closedPortURL(), { apiKey: secret, maxRetries: 1 }), { sleep, log });
    collect(await down.chatJson(judgeMessages(), Verdict, 'verdict'));
    fake.setApiKey(TEST_KEY);

    expect(texts.length).toBeGreaterThanOrEqual(6);
    expect(lines.length).toBeGreaterThan(0);
    for (const t of [...texts, ...lines]) {
      expect(t).not.toContain(secret);
      expect(t).not.toContain('SUPERSECRET');
    }
  });
});
