// createApp's firstRoutes (used by bench/label.ts to measure the middleware floor) sit behind every
// middleware: a route mounted there sees the session's user and is refused without a CSRF token,
// exactly as goldset's own routes are. Otherwise the floor would measure less than it claims.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.ts';
import { requireUser } from '../../server/http/security.ts';
import { Client, setupAdmin, startTestApp, type TestApp } from '../helpers.ts';

let app: TestApp;
let server: Server;
let url: string;

beforeEach(async () => {
  app = await startTestApp();
  const first = express.Router();
  first.post('/bench/floor', requireUser, (req, res) => { res.type('text').send(`ok ${req.user!.email}`); });
  server = await new Promise((resolve) => { const s = createApp(app.ctx, { firstRoutes: first }).listen(0, '127.0.0.1', () => resolve(s)); });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await app.close();
});

describe('firstRoutes', () => {
  it('run after the session, user lookup and CSRF check', async () => {
    const admin = await setupAdmin(app);
    const same = Object.assign(new Client(url), { cookie: admin.cookie, csrf: admin.csrf });
    const ok = await same.post('/bench/floor', {}, { headers: { 'X-CSRF-Token': admin.csrf } });
    expect(ok.status).toBe(200);
    expect(ok.text).toBe('ok admin@example.com');
    expect((await same.post('/bench/floor', {}, { csrf: null })).status).toBe(403);
    expect((await new Client(url).post('/bench/floor', {}, { csrf: null })).status).toBe(403);
  });
});
