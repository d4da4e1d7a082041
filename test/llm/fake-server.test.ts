// The fake OpenAI server itself, spoken to with plain fetch: routes, OpenAI-shaped errors,
// determinism, scripting order and request recording. The judge-client tests rely on all of this.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAI } from '../fake-openai/server.ts';
import type { FakeOpenAI } from '../fake-openai/server.ts';
import { cosine } from './helpers.ts';

const KEY = 'sk-fake-server-test-key';
let fake: FakeOpenAI;
beforeAll(async () => { fake = await startFakeOpenAI({ apiKey: KEY }); });
afterAll(async () => { await fake.close(); });
beforeEach(() => { fake.reset(); });

async function call(path: string, body?: unknown, key = KEY): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const res = await fetch(`${fake.baseURL}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: unknown;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, json, text };
}

const chat = (extra: Record<string, unknown> = {}) =>
  call('/chat/completions', { model: 'fake-chat', messages: [{ role: 'user', content: 'hello there' }], ...extra });

describe('fake OpenAI server', () => {
  it('lists and retrieves models; unknown model is a 404 model_not_found', async () => {
    const list = await call('/models');
    expect(list.status).toBe(200);
    expect(list.json.data.map((m: { id: string }) => m.id)).toContain('gpt-4o-mini');
    expect((await call('/models/fake-chat')).json).toMatchObject({ id: 'fake-chat', object: 'model' });
    const missing = await chat({ model: 'nope' });
    expect(missing.status).toBe(404);
    expect(missing.json.error).toMatchObject({ code: 'model_not_found', type: 'invalid_request_error' });
  });

  it('rejects a bad key with an OpenAI-style 401', async () => {
    const res = await call('/models', undefined, 'sk-other');
    expect(res.status).toBe(401);
    expect(res.json.error).toMatchObject({ code: 'invalid_api_key', type: 'invalid_request_error' });
    expect(fake.requests[0]?.headers['authorization']).toBe('Bearer sk-other');
  });

  it('answers chat deterministically with usage', async () => {
    const a = await chat();
    const b = await chat();
    expect(a.status).toBe(200);
    expect(a.json.choices[0].message.content).toBe(b.json.choices[0].message.content);
    expect(a.json.usage.total_tokens).toBe(a.json.usage.prompt_tokens + a.json.usage.completion_tokens);
    expect(a.json.usage.prompt_tokens).toBe(Math.ceil('hello there'.length / 4));
  });

  it('synthesises schema-conforming content for json_schema requests', async () => {
    const schema = { type: 'object', properties: { score: { type: 'integer', minimum: 1, maximum: 5 }, label: { type: 'string', enum: ['pass', 'fail'] } }, required: ['score', 'label'], additionalProperties: false };
    const res = await chat({ response_format: { type: 'json_schema', json_schema: { name: 'x', schema, strict: true } } });
    const value = JSON.parse(res.json.choices[0].message.content);
    expect(value.score).toBeGreaterThanOrEqual(1);
    expect(value.score).toBeLessThanOrEqual(5);
    expect(['pass', 'fail']).toContain(value.label);
  });

  it('applies queued faults in order, then returns to the handler', async () => {
    fake.onChat((_body, ctx) => ({ n: ctx.callIndex }));
    fake.queueChat(reply.rateLimit(3), reply.serverError(503), reply.content('not json'), reply.malformedBody());
    const r1 = await chat();
    expect(r1.status).toBe(429);
    expect(r1.headers.get('retry-after')).toBe('3');
    expect((await chat()).status).toBe(503);
    expect((await chat()).json.choices[0].message.content).toBe('not json');
    const r4 = await chat();
    expect(r4.status).toBe(200);
    expect(r4.json).toBeUndefined(); // body is truncated JSON
    expect((await chat()).json.choices[0].message.content).toBe('{"n":4}');
    expect(fake.counts()).toMatchObject({ chat: 5, total: 5 });
  });

  it('drops the connection on request', async () => {
    fake.queueChat(reply.drop());
    await expect(chat()).rejects.toThrow();
  });

  it('rejects an unparseable request body with 400', async () => {
    expect((await call('/chat/completions', '{"model":')).status).toBe(400);
  });

  it('embeds deterministically, float or base64', async () => {
    const res = await call('/embeddings', { model: 'fake-embed', input: ['good answer', 'good answers', 'tax law'] });
    const [a, b, c] = res.json.data.map((d: { embedding: number[] }) => d.embedding) as number[][];
    if (!a || !b || !c) throw new Error('missing');
    expect(a).toHaveLength(64);
    expect(Math.hypot(...a)).toBeCloseTo(1, 6);
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c));
    const b64 = await call('/embeddings', { model: 'fake-embed', input: 'good answer', encoding_format: 'base64' });
    const decoded = Array.from(new Float32Array(Uint8Array.from(Buffer.from(b64.json.data[0].embedding, 'base64')).buffer));
    decoded.forEach((x, i) => expect(x).toBeCloseTo(a[i] ?? NaN, 5));
  });

  it('unknown routes answer like OpenAI', async () => {
    const res = await call('/nope', {});
    expect(res.status).toBe(404);
    expect(res.json.error.message).toContain('Invalid URL');
  });
});
