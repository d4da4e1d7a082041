// Judge client happy paths against the fake server with the real openai SDK: structured output in
// both modes, the single repair turn, caching (counted at the server) and embeddings.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createJudgeClient } from '../../server/llm/client.ts';
import { reply, startFakeOpenAI } from '../fake-openai/server.ts';
import type { ChatRequestBody, FakeOpenAI } from '../fake-openai/server.ts';
import { cosine, judgeMessages, makeConfig, MemoryCache, TEST_KEY, Verdict } from './helpers.ts';

let fake: FakeOpenAI;
beforeAll(async () => { fake = await startFakeOpenAI({ apiKey: TEST_KEY }); });
afterAll(async () => { await fake.close(); });
beforeEach(() => { fake.reset(); });

const lastChatBody = (): ChatRequestBody => {
  const req = fake.requests.filter((r) => r.path === '/v1/chat/completions').at(-1);
  if (!req) throw new Error('no chat request recorded');
  return req.body as ChatRequestBody;
};

describe('chatJson structured output', () => {
  it('returns the validated value with usage, using json_schema response_format', async () => {
    fake.onChat(() => ({ score: 4, reason: 'Correct and concise.' }));
    const client = createJudgeClient(makeConfig(fake.baseURL));
    const res = await client.chatJson(judgeMessages(), Verdict, 'verdict');
    expect(res).toMatchObject({ ok: true, value: { score: 4, reason: 'Correct and concise.' }, cached: false, attempts: 1 });
    if (!res.ok) throw new Error('unreachable');
    expect(res.raw).toBe('{"score":4,"reason":"Correct and concise."}');
    expect(res.usage.prompt).toBeGreaterThan(0);
    expect(res.usage.completion).toBeGreaterThan(0);

    const body = lastChatBody();
    expect(body.model).toBe('fake-chat');
    expect(body.temperature).toBe(0);
    expect(body.response_format?.type).toBe('json_schema');
    expect(body.response_format?.json_schema?.name).toBe('verdict');
    expect(body.response_format?.json_schema?.strict).toBe(true);
    expect(body.response_format?.json_schema?.schema).toMatchObject({ type: 'object', required: ['score', 'reason'], additionalProperties: false });
    expect(fake.requests[0]?.headers['authorization']).toBe(`Bearer ${TEST_KEY}`);
    expect(client.stats()).toMatchObject({ llm_calls: 1, cached_calls: 0, tokens: { prompt: res.usage.prompt, completion: res.usage.completion } });
  });

  it('works with the default deterministic responder (schema-conforming answer)', async () => {
    const client = createJudgeClient(makeConfig(fake.baseURL));
    const a = await client.chatJson(judgeMessages('answer A'), Verdict, 'verdict');
    const b = await client.chatJson(judgeMessages('answer A'), Verdict, 'verdict');
    expect(a.ok && b.ok).toBe(true);
    if (a.ok && b.ok) expect(a.value).toEqual(b.value);
  });

  it('sends strict: false when the schema has optional fields', async () => {
    const client = createJudgeClient(makeConfig(fake.baseURL));
    const res = await client.chatJson(judgeMessages(), Verdict.extend({ note: Verdict.shape.reason.optional() }), 'verdict');
    expect(res.ok).toBe(true);
    expect(lastChatBody().response_format?.json_schema?.strict).toBe(false);
  });

  it('json_object mode puts the schema in the system prompt', async () => {
    const client = createJudgeClient(makeConfig(fake.baseURL, { structuredOutput: 'json_object' }));
    const res = await client.chatJson(judgeMessages(), Verdict, 'verdict');
    expect(res.ok).toBe(true);
    const body = lastChatBody();
    expect(body.response_format).toEqual({ type: 'json_object' });
    const system = body.messages.filter((m) => m.role === 'system');
    expect(system).toHaveLength(1);
    expect(String(system[0]?.content)).toContain('You grade answers');
    expect(String(system[0]?.content)).toContain('"required"');
    expect(String(system[0]?.content)).toMatch(/JSON/);
  });

  it('json_object mode adds a system message when there is none', async () => {
    fake.onChat(() => '```json\n{"score": 2, "reason": "fenced"}\n```');
    const client = createJudgeClient(makeConfig(fake.baseURL, { structuredOutput: 'json_object' }));
    const res = await client.chatJson([{ role: 'user', content: 'grade: 2+2=5' }], Verdict, 'verdict');
    expect(res).toMatchObject({ ok: true, value: { score: 2, reason: 'fenced' } });
    expect(lastChatBody().messages[0]?.role).toBe('system');
  });
});

describe('repair', () => {
  it('malformed JSON gets exactly one repair turn, then succeeds', async () => {
    fake.queueChat(reply.content('{"score": 4, "reason": "cut off'));
    fake.onChat(() => ({ score: 4, reason: 'fixed' }));
    const client = createJudgeClient(makeConfig(fake.baseURL));
    const res = await client.chatJson(judgeMessages(), Verdict, 'verdict');
    expect(res).toMatchObject({ ok: true, value: { score: 4, reason: 'fixed' }, attempts: 2 });
    expect(fake.counts().chat).toBe(2);
    const repair = lastChatBody().messages;
    expect(repair.at(-2)).toMatchObject({ role: 'assistant', content: '{"score": 4, "reason": "cut off' });
    expect(repair.at(-1)?.role).toBe('user');
    expect(String(repair.at(-1)?.content)).toContain('not valid JSON');
    expect(client.stats().llm_calls).toBe(2);
  });

  it('wrong schema twice gives a schema error with the raw output kept, after exactly 2 calls', async () => {
    fake.queueChat(reply.json({ score: 'high' }), reply.json({ score: 9, reason: 'still wrong' }));
    const cache = new MemoryCache();
    const client = createJudgeClient(makeConfig(fake.baseURL), { cache });
    const res = await client.chatJson(judgeMessages(), Verdict, 'verdict');
    expect(res.ok).toBe(false);
    if (res.ok) return;
    expect(res.error.kind).toBe('schema');
    expect(res.error.raw).toBe('{"score":9,"reason":"still wrong"}');
    expect(res.error.message).toMatch(/score/);
    expect(res.attempts).toBe(2);
    expect(fake.counts().chat).toBe(2);
    expect(String(lastChatBody().messages.at(-1)?.content)).toMatch(/score/);
    // Failures are never cached: the same call goes to the endpoint again.
    expect(cache.map.size).toBe(0);
    const again = await client.chatJson(judgeMessages(), Verdict, 'verdict');
    expect(again.ok).toBe(true);
    expect(fake.counts().chat).toBe(3);
  });

  it('unparseable twice gives an unparseable error', async () => {
    fake.onChat(() => 'I think the answer deserves a 4.');
    const client = createJudgeClient(makeConfig(fake.baseURL));
    const res = await client.chatJson(judgeMessages(), Verdict, 'verdict');
    expect(res).toMatchObject({ ok: false, error: { kind: 'unparseable', raw: 'I think the answer deserves a 4.' } });
    expect(fake.counts().chat).toBe(2);
  });
});

describe('cache', () => {
  it('serves an identical second call from the cache without reaching the server', async () => {
    const cache = new MemoryCache();
    const client = createJudgeClient(makeConfig(fake.baseURL), { cache });
    const first = await client.chatJson(judgeMessages(), Verdict, 'verdict');
    const second = await client.chatJson(judgeMessages(), Verdict, 'verdict');
    expect(first).toMatchObject({ ok: true, cached: false });
    expect(second).toMatchObject({ ok: true, cached: true, attempts: 0, usage: { prompt: 0, completion: 0 } });
    if (first.ok && second.ok) expect(second.value).toEqual(first.value);
    expect(fake.counts().chat).toBe(1);
    expect(client.stats()).toMatchObject({ llm_calls: 1, cached_calls: 1 });
    expect([...cache.map.keys()][0]).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a different temperature, model or prompt is a different key', async () => {
    const cache = new MemoryCache();
    await createJudgeClient(makeConfig(fake.baseURL), { cache }).chatJson(judgeMessages(), Verdict, 'verdict');
    await createJudgeClient(makeConfig(fake.baseURL, { temperature: 0.7 }), { cache }).chatJson(judgeMessages(), Verdict, 'verdict');
    await createJudgeClient(makeConfig(fake.baseURL, { chatModel: 'gpt-4o-mini' }), { cache }).chatJson(judgeMessages(), Verdict, 'verdict');
    await createJudgeClient(makeConfig(fake.baseURL), { cache }).chatJson(judgeMessages('other'), Verdict, 'verdict');
    expect(fake.counts().chat).toBe(4);
    expect(cache.map.size).toBe(4);
  });

  it('a repaired answer is cached under the original request', async () => {
    fake.queueChat(reply.content('nope'));
    const cache = new MemoryCache();
    const client = createJudgeClient(makeConfig(fake.baseURL), { cache });
    expect((await client.chatJson(judgeMessages(), Verdict, 'verdict')).ok).toBe(true);
    expect(await client.chatJson(judgeMessages(), Verdict, 'verdict')).toMatchObject({ ok: true, cached: true });
    expect(fake.counts().chat).toBe(2);
  });
});

describe('embed', () => {
  it('returns deterministic normalised vectors; identical texts cosine 1, similar texts high', async () => {
    const client = createJudgeClient(makeConfig(fake.baseURL));
    const [a, b, c, d] = await client.embed([
      'The cat sat on the mat.', 'The cat sat on the mat.', 'The cat sat on a mat.', 'Quarterly revenue grew 4%.',
    ]);
    if (!a || !b || !c || !d) throw new Error('missing vectors');
    expect(a).toHaveLength(64);
    expect(cosine(a, b)).toBeCloseTo(1, 6);
    expect(cosine(a, c)).toBeGreaterThan(0.7);
    expect(cosine(a, d)).toBeLessThan(cosine(a, c));
    // Duplicates are sent once.
    const sent = fake.requests[0]?.body as { input: string[]; encoding_format: string };
    expect(sent.input).toHaveLength(3);
    expect(sent.encoding_format).toBe('float');
  });

  it('caches per text and batches the misses', async () => {
    const cache = new MemoryCache();
    const client = createJudgeClient(makeConfig(fake.baseURL, { embeddingBatchSize: 2 }), { cache });
    await client.embed(['a', 'b', 'c']);
    expect(fake.counts().embeddings).toBe(2);
    const again = await client.embed(['c', 'b', 'a', 'd', 'e']);
    expect(again).toHaveLength(5);
    expect(fake.counts().embeddings).toBe(3); // only d and e were new: one batch of 2
    expect(client.stats().cached_calls).toBe(3);
  });
});

describe('testConnection', () => {
  it('reports ok with the model name', async () => {
    const client = createJudgeClient(makeConfig(fake.baseURL));
    expect(await client.testConnection()).toEqual({ ok: true, model: 'fake-chat' });
    expect((lastChatBody() as { max_tokens?: number }).max_tokens).toBe(5);
  });

  it('falls back to max_completion_tokens for models that reject max_tokens', async () => {
    fake.queueChat(reply.error(400, { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", code: 'unsupported_parameter' }));
    const client = createJudgeClient(makeConfig(fake.baseURL));
    expect(await client.testConnection()).toEqual({ ok: true, model: 'fake-chat' });
    expect(lastChatBody()).toMatchObject({ max_completion_tokens: 16 });
    expect(lastChatBody()).not.toHaveProperty('max_tokens');
  });
});
