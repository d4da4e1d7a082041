// Calibration end to end: gold labels and an imported run, the report (page, live threshold, CLI keys),
// the holdout guard for few-shot examples, and the CI gate.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { goldsetCli } from '../cli.ts';

let dir: string;
let db: string;

const goldset = (args: string[]) => goldsetCli(args, { env: { GOLDSET_DB: db } });

/** 40 items: the expert passes even ones; `faithfulness` agrees with the expert on all but the last 4; `answer_relevancy` is unrelated and `context_recall` constant. */
async function seed(): Promise<void> {
  const rows = Array.from({ length: 40 }, (_, i) => {
    const pass = i % 2 === 0;
    const agrees = i < 36;
    return JSON.stringify({
      user_input: `Question ${i}?`, response: `Answer ${i}.`, retrieved_contexts: [`Context ${i}`], reference: `Reference ${i}.`, system: i < 20 ? 'v1' : 'v2',
      'human.correct': pass ? 'yes' : 'no', faithfulness: (pass === agrees) ? 0.9 : 0.1, answer_relevancy: (i * 37) % 10 / 10, context_recall: 0.2,
    });
  });
  const file = path.join(dir, 'set.jsonl');
  fs.writeFileSync(file, rows.join('\n'));
  const res = await goldset(['import', file, '--dataset', 'HR', '--annotator', 'li@example.com', '--run', 'ragas']);
  expect(res.code, res.stderr).toBe(0);
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-calib-'));
  db = path.join(dir, 'c.db');
  await seed();
});

describe('goldset report', () => {
  it('prints exactly the keys other programs read, with figures computed from gold labels and scores', async () => {
    const res = await goldset(['report', '--dataset', 'HR', '--criterion', 'correct', '--metric', 'faithfulness', '--run', 'ragas', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(Object.keys(out)).toEqual(['n', 'excluded', 'pearson', 'spearman', 'kendall_tau_b', 'mae', 'rmse', 'threshold', 'accuracy', 'precision',
      'recall', 'f1', 'cohen_kappa', 'roc_auc', 'best_threshold', 'confusion', 'coverage', 'false_failure_rate', 'alignment', 'ci95', 'release']);
    expect(out.n).toBe(40);
    expect(out.confusion).toEqual({ tp: 18, fp: 2, tn: 18, fn: 2 });
    expect(out.accuracy).toBeCloseTo(36 / 40, 10);
    expect(out.cohen_kappa).toBeCloseTo(0.8, 10);
    expect(out.coverage).toBeCloseTo(18 / 20, 10);
    expect(out.false_failure_rate).toBeCloseTo(2 / 20, 10);
    expect(out.ci95.cohen_kappa[0]).toBeLessThan(0.8);
    expect(out.ci95.cohen_kappa[1]).toBeGreaterThan(0.8);
  });

  it('reports null, never a made-up number, for a constant judge', async () => {
    const out = JSON.parse((await goldset(['report', '--dataset', 'HR', '--criterion', 'correct', '--metric', 'context_recall', '--run', 'ragas', '--json'])).stdout);
    expect(out.pearson).toBeNull();
    expect(out.roc_auc).toBe(0.5);
    expect(out.cohen_kappa).toBe(0);
  });

  it('refuses an unknown run with a message saying how to make one', async () => {
    const res = await goldset(['report', '--dataset', 'HR', '--criterion', 'correct', '--metric', 'faithfulness', '--run', 'nope']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('no run "nope"');
  });
});

describe('goldset gate', () => {
  it('refuses to gate on a metric that was never calibrated', async () => {
    const res = await goldset(['gate', '--dataset', 'HR', '--run', 'ragas', '--min', 'faithfulness=0.4', '--json']);
    expect(res.code).toBe(1);
    const out = JSON.parse(res.stdout);
    expect(out.passed).toBe(false);
    expect(out.checks[0].reason).toContain('never been calibrated');
  });

  it('passes a calibrated metric whose mean is above its minimum, and fails one below', async () => {
    await goldset(['report', '--dataset', 'HR', '--criterion', 'correct', '--metric', 'faithfulness', '--run', 'ragas']);
    const pass = await goldset(['gate', '--dataset', 'HR', '--run', 'ragas', '--min', 'faithfulness=0.4']);
    expect(pass.code, pass.stdout + pass.stderr).toBe(0);
    expect(pass.stdout).toContain('PASS faithfulness');
    const fail = await goldset(['gate', '--dataset', 'HR', '--run', 'ragas', '--min', 'faithfulness=0.6']);
    expect(fail.code).toBe(1);
    expect(fail.stdout).toContain('FAIL faithfulness: mean 0.5000 < 0.6');
  });

  it('refuses a metric whose latest calibration is weaker than the agreement minimum, saying so', async () => {
    await goldset(['report', '--dataset', 'HR', '--criterion', 'correct', '--metric', 'answer_relevancy', '--run', 'ragas']);
    const res = await goldset(['gate', '--dataset', 'HR', '--run', 'ragas', '--min', 'answer_relevancy=0.1']);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/REFUSED answer_relevancy: .*cohen_kappa = .* below 0\.6/);
    const lenient = await goldset(['gate', '--dataset', 'HR', '--run', 'ragas', '--min', 'answer_relevancy=0.1', '--min-agreement=-1']);
    expect(lenient.code).toBe(0);
  });
});

describe('holdout guard and report page', () => {
  it('never counts an item used as a few-shot example, and splits calibration and held-out parts by the dataset seed', async () => {
    const { startTestApp, loginAs } = await import('../helpers.ts');
    const app = await startTestApp();
    try {
      // Load the seeded database's rows into a fresh instance through the same import.
      const datasetId = app.ctx.datasets.create(null, { name: 'HR', description: '', language: 'en', domain: '' }).id;
      const admin = app.ctx.users.queries.insert({ email: 'li@example.com', name: '', role: 'expert', password_hash: null });
      const result = await app.ctx.imports.importFile(null, datasetId, path.join(dir, 'set.jsonl'), { format: 'jsonl', annotatorId: admin, runName: 'ragas' });
      expect(result.ok).toBe(true);
      const criterion = app.ctx.criteria.queries.byName(datasetId, 'correct')!;
      const imported = app.ctx.runner.queries.byName(datasetId, 'ragas', 'faithfulness')!;
      const firstResponse = app.ctx.db.prepare('SELECT min(id) FROM response').pluck().get() as number;
      // A goldset run whose prompt used the first response as a few-shot example.
      const runId = app.ctx.runner.queries.insert({ dataset_id: datasetId, name: 'calib v2', metric_key: 'faithfulness', source: 'goldset', status: 'done',
        model: 'm', embedding_model: '', selection: '{}', concurrency: 1, n_total: 40, created_by: null,
        prompts: JSON.stringify({ used: { nli: { instruction: '', output_format: '', language: 'en', version: 2, examples: [{ input: {}, output: {}, response_id: firstResponse }] } } }) });
      app.ctx.db.prepare(`INSERT INTO score (run_id, response_id, status, value) SELECT ?, response_id, status, value FROM score WHERE run_id = ?`).run(runId, imported.id);
      const dataset = app.ctx.datasets.get(datasetId)!;
      const run = app.ctx.runner.queries.byId(runId)!;
      const all = app.ctx.calibration.report({ criterion, run, part: 'all', holdoutSeed: dataset.holdout_seed, resamples: 50 }).report;
      expect(all.excluded.used_as_example).toBe(1);
      expect(all.n).toBe(39);
      const cal = app.ctx.calibration.report({ criterion, run, part: 'calibration', holdoutSeed: dataset.holdout_seed, resamples: 50 });
      const held = app.ctx.calibration.report({ criterion, run, part: 'held_out', holdoutSeed: dataset.holdout_seed, resamples: 50 });
      const calIds = new Set(cal.pairs.map((p) => p.id));
      expect(held.pairs.some((p) => calIds.has(p.id))).toBe(false);
      expect(cal.pairs.length + held.pairs.length).toBe(40);
      expect(held.pairs.length).toBeGreaterThan(0);

      const client = await loginAs(app, 'boss@example.com', 'admin');
      const page = await client.get(`/datasets/${datasetId}/calibration?criterion=${criterion.id}&run=${imported.id}&part=all&threshold=0.5`);
      expect(page.status).toBe(200);
      expect(page.text).toContain("Cohen's κ");
      expect(page.text).toContain('<svg');
      expect(page.text).not.toContain('<script>');
      const at05 = /Accuracy<\/th><td class="num strong">([\d.]+)%/.exec(page.text)![1];
      const moved = await client.get(`/datasets/${datasetId}/calibration?criterion=${criterion.id}&run=${imported.id}&part=all&threshold=0.95`, { 'HX-Request': 'true' });
      expect(moved.text.startsWith('<div id="report"')).toBe(true);
      const at095 = /Accuracy<\/th><td class="num strong">([\d.]+)%/.exec(moved.text)![1];
      expect(at05).toBe('90.0');
      expect(at095).toBe('50.0');
      const zh = new (client.constructor as typeof import('../helpers.ts').Client)(app.url, 'zh-CN');
      zh.cookie = client.cookie;
      await zh.post('/locale', { locale: 'zh', back: '/' }, { csrf: client.csrf });
      const zhPage = await zh.get(`/datasets/${datasetId}/calibration?criterion=${criterion.id}&run=${imported.id}&part=all`);
      expect(zhPage.text).toContain('准确率');
      expect(zhPage.text).toContain('评测模型与专家对照');
    } finally {
      await app.close();
    }
  });
});

describe('recording from the page', () => {
  it('records a calibration that the gate then reads', async () => {
    const sqlite = new Database(db, { readonly: true });
    expect(sqlite.prepare('SELECT count(*) FROM calibration').pluck().get()).toBe(0);
    sqlite.close();
    await goldset(['report', '--dataset', 'HR', '--criterion', 'correct', '--metric', 'faithfulness', '--run', 'ragas', '--part', 'calibration']);
    const after = new Database(db, { readonly: true });
    const row = after.prepare('SELECT part, strength_name, strength FROM calibration').get() as { part: string; strength_name: string; strength: number };
    after.close();
    expect(row.part).toBe('calibration');
    expect(row.strength_name).toBe('cohen_kappa');
  });
});
