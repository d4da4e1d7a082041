// answer_relevancy follows Ragas 0.4 by default; Ragas ≤0.3's 'any' rule is a setting of the metric
// (Metrics page, with the version it read; the CLI's score --noncommittal for one run), and a run
// records the rule it was scored with, which the gate compares.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { loginAs, startTestApp, type Client, type TestApp } from '../helpers.ts';
import { identityChanges, identityOfRun } from '../../server/calibration/judge-identity.ts';

let fake: FakeOpenAI;
let app: TestApp;
let admin: Client;
let datasetId: number;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  app = await startTestApp({ OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'k', GOLDSET_JUDGE_MODEL: 'fake-chat', GOLDSET_EMBEDDING_MODEL: 'fake-embed' });
  admin = await loginAs(app, 'boss@example.com', 'admin');
  datasetId = app.ctx.datasets.create(null, { name: 'Rel', description: '', language: 'en', domain: '' }).id;
  app.ctx.db.prepare("INSERT INTO sample (dataset_id, question_key, question) VALUES (?, 'k', 'Who approves leave?')").run(datasetId);
  app.ctx.db.prepare("INSERT INTO response (sample_id, dataset_id, answer, content_hash) SELECT id, dataset_id, 'The manager.', 'h' FROM sample WHERE dataset_id = ?").run(datasetId);
});
afterAll(async () => { await app.close(); await fake.close(); });

const settingsOf = (runId: number) => JSON.parse(app.ctx.runner.queries.byId(runId)!.prompts).settings;

describe('answer_relevancy settings', () => {
  it("records Ragas 0.4's 'all' rule by default, and a run's override", () => {
    expect(settingsOf(app.ctx.runner.create(null, datasetId, { name: 'a', metricKey: 'answer_relevancy' }).id)).toEqual({ noncommittal: 'all' });
    expect(settingsOf(app.ctx.runner.create(null, datasetId, { name: 'b', metricKey: 'answer_relevancy', settings: { noncommittal: 'any' } }).id)).toEqual({ noncommittal: 'any' });
    expect(() => app.ctx.runner.create(null, datasetId, { name: 'c', metricKey: 'answer_relevancy', settings: { noncommittal: 'some' } })).toThrow(/takes all or any/);
  });

  it('is set on the Metrics page with the version it read; a stale form is refused and changes nothing', async () => {
    const page = await admin.get(`/datasets/${datasetId}/metrics`);
    expect(page.text).toContain('Non-committal rule');
    const saved = await admin.post(`/datasets/${datasetId}/metrics/answer_relevancy/settings`, { version: 0, noncommittal: 'any' });
    expect(saved.status).toBe(303);
    expect(app.ctx.metricSettings.get(datasetId, 'answer_relevancy')).toEqual({ settings: { noncommittal: 'any' }, version: 1 });
    const stale = await admin.post(`/datasets/${datasetId}/metrics/answer_relevancy/settings`, { version: 0, noncommittal: 'all' });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('Someone changed these settings meanwhile');
    expect(app.ctx.metricSettings.get(datasetId, 'answer_relevancy').settings).toEqual({ noncommittal: 'any' });
    const run = app.ctx.runner.create(null, datasetId, { name: 'd', metricKey: 'answer_relevancy' });
    expect(settingsOf(run.id)).toEqual({ noncommittal: 'any' });
    await app.ctx.runner.start(run.id);
    expect(app.ctx.runner.queries.score(run.id, app.ctx.runner.queries.scores(run.id, { limit: 1, offset: 0 })[0]!.response_id)!.trace).toContain('"rule":"any"');
  });

  it('makes a run with another rule another judge for the gate', () => {
    const a = app.ctx.runner.queries.byName(datasetId, 'a', 'answer_relevancy')!;
    const b = app.ctx.runner.queries.byName(datasetId, 'b', 'answer_relevancy')!;
    expect(identityChanges(identityOfRun(a), identityOfRun(b))).toEqual([{ what: 'setting', name: 'noncommittal', from: 'all', to: 'any' }]);
  });
});
