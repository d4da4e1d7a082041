// Requests a person or a program can send by mistake get a 4xx with a message, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupAdmin, startTestApp, type Client, type TestApp } from '../helpers.ts';

let app: TestApp;
let admin: Client;
let ds: number;
beforeAll(async () => {
  app = await startTestApp();
  admin = await setupAdmin(app);
  ds = app.ctx.datasets.create(null, { name: 'Search', description: '', language: 'zh', domain: '' }).id;
  app.ctx.samples.create(null, ds, { question: '张伟是哪个部门的？', ground_truth: '', reference_contexts: [], tags: [], source: '', notes: '' });
});
afterAll(async () => { await app.close(); });

describe('bad requests', () => {
  it('answers a search with a NUL character with 400 and says why, in the user\'s language', async () => {
    for (const q of ['\u0000', '张伟\u0000部门', 'ab\u0000']) {
      const res = await admin.get(`/datasets/${ds}?q=${encodeURIComponent(q)}`);
      expect(res.status, JSON.stringify(q)).toBe(400);
      expect(res.text).toContain('NUL character');
    }
    const fragment = await admin.get(`/datasets/${ds}?q=%00`, { 'HX-Request': 'true' });
    expect(fragment.status).toBe(400);
    expect(fragment.text).toMatch(/^<div class="alert" role="alert">/);
  });

  it('searches everything else people type, quotes and FTS operators included', async () => {
    for (const q of ['"', '张伟"', 'NEAR(a b)', '*', 'AND OR NOT', '^x', '{question}:张', '张伟 OR', "'; DROP TABLE sample; --"]) {
      const res = await admin.get(`/datasets/${ds}?q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
    }
    expect((await admin.get(`/datasets/${ds}?q=${encodeURIComponent('张伟')}`)).text).toContain('张伟是哪个部门的？');
    expect(app.logs.some((l) => l.includes('"level":"error"'))).toBe(false);
  });
});
