// The CI gate is about the judge being gated: --min splits on the last '=' (metric names hold '='
// and '('), and a calibration recorded with another judge model, embedding model or prompt versions
// than the gated run's does not count: the gate refuses and says what changed.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server.ts';
import { startTestApp, type TestApp } from '../helpers.ts';
import { cmdGate, cmdReport, parseMin } from '../../server/calibration/cli.ts';

let fake: FakeOpenAI;
let app: TestApp;
let datasetId: number;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  app = await startTestApp({ OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'k', GOLDSET_JUDGE_MODEL: 'fake-chat', GOLDSET_EMBEDDING_MODEL: 'fake-embed' });
  datasetId = app.ctx.datasets.create(null, { name: 'Gate', description: '', language: 'en', domain: '' }).id;
  const file = path.join(app.dir, 'results.csv');
  fs.writeFileSync(file, 'user_input,response,retrieved_contexts,human.correct,factual_correctness(mode=f1)\n'
    + Array.from({ length: 30 }, (_, i) => `Q${i}?,A${i}.,['C${i}'],${i % 2 ? 'yes' : 'no'},${i % 2 ? 0.9 : 0.1}`).join('\n'));
  const expert = app.ctx.users.queries.insert({ email: 'li@example.com', name: '', role: 'expert', password_hash: null });
  expect((await app.ctx.imports.importFile(null, datasetId, file, { format: 'csv', annotatorId: expert, runName: 'ragas' })).ok).toBe(true);
});
afterAll(async () => { await app.close(); await fake.close(); });

function capture() {
  const printed: { text: string; data: Record<string, unknown> }[] = [];
  return { printed, out: { json: false, print: (text: string, data: Record<string, unknown>) => { printed.push({ text, data }); } } };
}

async function score(name: string, model?: string): Promise<void> {
  const run = app.ctx.runner.create(null, datasetId, { name, metricKey: 'faithfulness' });
  await app.ctx.runner.start(run.id);
  if (model) app.ctx.db.prepare('UPDATE run SET model = ? WHERE id = ?').run(model, run.id);
}

const report = (run: string, metric: string) => cmdReport(app.ctx, { dataset: 'Gate', criterion: 'correct', metric, run }, capture().out);

describe('gate --min', () => {
  it('splits METRIC=VALUE on the last =', () => {
    expect(parseMin('factual_correctness(mode=f1)=0.3')).toEqual({ metric: 'factual_correctness(mode=f1)', min: 0.3 });
    expect(parseMin('faithfulness=0.7')).toEqual({ metric: 'faithfulness', min: 0.7 });
    expect(() => parseMin('faithfulness')).toThrow(/METRIC=VALUE/);
    expect(() => parseMin('faithfulness=')).toThrow(/METRIC=VALUE/);
  });

  it('gates a metric whose name holds ( and =', async () => {
    await report('ragas', 'factual_correctness(mode=f1)');
    const { printed, out } = capture();
    expect(await cmdGate(app.ctx, { dataset: 'Gate', run: 'ragas', min: ['factual_correctness(mode=f1)=0.3'] }, out)).toBe(0);
    expect(printed[0]!.text).toContain('PASS factual_correctness(mode=f1): mean 0.5000 ≥ 0.3');
  });
});

describe('gate and the judge identity of calibrations', () => {
  it('counts a calibration of the same judge, and refuses one of another judge model or prompt version, saying what changed', async () => {
    await score('calibrated');
    await report('calibrated', 'faithfulness');
    await score('nightly');
    let c = capture();
    await cmdGate(app.ctx, { dataset: 'Gate', run: 'nightly', min: ['faithfulness=0'], 'min-agreement': '-1' }, c.out);
    expect(c.printed[0]!.text).toContain('PASS faithfulness');

    await score('other-model', 'qwen-plus');
    c = capture();
    expect(await cmdGate(app.ctx, { dataset: 'Gate', run: 'other-model', min: ['faithfulness=0'], 'min-agreement': '-1' }, c.out)).toBe(1);
    expect(c.printed[0]!.text).toContain('REFUSED faithfulness');
    expect(c.printed[0]!.text).toContain('judge model fake-chat → qwen-plus');

    app.ctx.prompts.save(null, datasetId, 'faithfulness', 'nli', { instruction: 'Judge each statement.', output_format: '', examples: [], language: 'en' }, 'edited');
    await score('edited');
    c = capture();
    expect(await cmdGate(app.ctx, { dataset: 'Gate', run: 'edited', min: ['faithfulness=0'], 'min-agreement': '-1' }, c.out)).toBe(1);
    expect(c.printed[0]!.text).toContain('prompt nli default → v1');
    expect(c.printed[0]!.data).toMatchObject({ passed: false, checks: [{ metric: 'faithfulness', refused: true, changes: ['prompt nli default → v1'] }] });

    // Once this judge is calibrated itself, it is gated on that calibration.
    await report('edited', 'faithfulness');
    c = capture();
    await cmdGate(app.ctx, { dataset: 'Gate', run: 'edited', min: ['faithfulness=0'], 'min-agreement': '-1' }, c.out);
    expect(c.printed[0]!.text).toContain('PASS faithfulness');
  });
});
