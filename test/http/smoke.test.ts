import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setupAdmin, startTestApp, type TestApp } from '../helpers.ts';

let app: TestApp;
beforeEach(async () => { app = await startTestApp(); });
afterEach(async () => { await app.close(); });

describe('smoke', () => {
  it('serves the datasets page after setup', async () => {
    const admin = await setupAdmin(app);
    const res = await admin.get('/datasets');
    expect(res.status).toBe(200);
    expect(res.text).toContain('Datasets');
  });
});
