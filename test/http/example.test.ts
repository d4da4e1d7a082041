// The example datasets show the whole loop with no API key (issue #11.5): answers of two systems,
// criteria (one per context), labels by two example experts with disagreements, an imported Ragas run,
// and so labelling, agreement, calibration and the audit queue all have content, in both languages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAs, setupAdmin, startTestApp, type Client, type TestApp } from '../helpers.ts';
import { EXAMPLE_RUN } from '../../server/datasets/example.ts';
import { pyList } from '../../server/datasets/example/scores.ts';

let app: TestApp;
let admin: Client;
let ids: number[];

beforeAll(async () => {
  app = await startTestApp();
  admin = await setupAdmin(app);
  const res = await admin.post('/datasets/example', {});
  expect(res.status).toBe(303);
  ids = app.ctx.db.prepare('SELECT id FROM dataset ORDER BY id').pluck().all() as number[];
});
afterAll(async () => { await app.close(); });

const one = (sql: string, ...args: unknown[]) => app.ctx.db.prepare(sql).pluck().get(...args) as number;

describe('the example datasets', () => {
  it('are two, Chinese and English, each with 40 answers of two systems and two criteria, one per context', () => {
    expect(ids).toHaveLength(2);
    expect(ids.map((id) => app.ctx.datasets.get(id)!.language)).toEqual(['zh', 'en']);
    for (const id of ids) {
      expect(one('SELECT count(*) FROM sample WHERE dataset_id = ?', id)).toBe(20);
      expect(app.ctx.responses.systems(id).map((s) => [s.system, s.n])).toEqual([['rag-v1', 20], ['rag-v2', 20]]);
      expect(app.ctx.criteria.forDataset(id).map((c) => [c.name, c.kind, c.target])).toEqual([['correct', 'binary', 'response'], ['relevant', 'binary', 'context']]);
      expect(app.ctx.criteria.forDataset(id).every((c) => c.guidelines.length > 10)).toBe(true);
      for (const status of ['draft', 'in_review', 'approved']) expect(one('SELECT count(*) FROM sample WHERE dataset_id = ? AND status = ?', id, status)).toBeGreaterThan(0);
    }
  });

  it('have labels by two example experts who disagree on some items, and leave items for a newcomer to label', async () => {
    for (const id of ids) {
      expect(one("SELECT count(DISTINCT annotator_id) FROM annotation WHERE dataset_id = ? AND state = 'submitted'", id)).toBe(2);
      expect(app.ctx.labels.disagreementCount(id)).toBe(4);
      const agreement = await admin.get(`/datasets/${id}/agreement`);
      expect(agreement.status).toBe(200);
      expect(agreement.text).toMatch(/Krippendorff/);
      const newcomer = await loginAs(app, `new-${id}@example.com`, 'expert');
      await newcomer.get(`/datasets/${id}/label`);
      const handed = await newcomer.post(`/datasets/${id}/label/next`, {}, { headers: { 'HX-Request': 'true' } });
      expect(handed.text).toContain('data-response=');
    }
  });

  it('have an imported Ragas run whose scores calibrate against the gold labels, with judge errors in the audit queue', async () => {
    for (const id of ids) {
      const runs = app.ctx.runner.queries.forDataset(id);
      expect(runs.map((r) => r.metric_key).sort()).toEqual(['answer_correctness', 'context_precision', 'faithfulness']);
      expect(runs.every((r) => r.name === EXAMPLE_RUN && r.source === 'imported')).toBe(true);
      const run = runs.find((r) => r.metric_key === 'answer_correctness')!;
      expect(one("SELECT count(*) FROM score WHERE run_id = ? AND status = 'ok'", run.id)).toBe(40);
      const correct = app.ctx.criteria.forDataset(id)[0]!;
      const dataset = app.ctx.datasets.get(id)!;
      const { report } = app.ctx.calibration.report({ criterion: correct, run, part: 'all', threshold: 0.5, holdoutSeed: dataset.holdout_seed });
      expect(report.n).toBeGreaterThanOrEqual(36);
      expect(report.kind === 'binary' && report.cohen_kappa).toBeGreaterThan(0.5);
      expect(report.kind === 'binary' && report.cohen_kappa).toBeLessThan(1);
      const queue = await admin.get(`/runs/${run.id}/review?criterion=${correct.id}`);
      expect((queue.text.match(/id="item-\d+"/g) ?? []).length).toBeGreaterThanOrEqual(4);
      const page = await admin.get(`/datasets/${id}/calibration?criterion=${correct.id}&run=${run.id}&part=all`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('not yet meaningful');
    }
  });

  it('scores are in the range and shape a Ragas 0.4.3 run writes', () => {
    const values = app.ctx.db.prepare("SELECT r.metric_key, s.value FROM score s JOIN run r ON r.id = s.run_id WHERE r.name = ?").all(EXAMPLE_RUN) as { metric_key: string; value: number }[];
    expect(values.every((v) => v.value >= 0 && v.value <= 1)).toBe(true);
    expect(new Set(values.filter((v) => v.metric_key === 'context_precision').map((v) => v.value))).toEqual(new Set([0.9999999999, 0.49999999995, 0]));
    expect(pyList(["it's", 'say "hi"', '张伟'])).toBe(`["it's", 'say "hi"', '张伟']`);
  });

  it('are loaded once: a second press creates nothing', async () => {
    await admin.get('/datasets');
    expect((await admin.post('/datasets/example', {})).status).toBe(303);
    expect(one('SELECT count(*) FROM dataset')).toBe(2);
  });
});

describe('calibration on the example (issue #11.10)', () => {
  it('opens with a pair that fits, not the first criterion against the newest run, and says when a pair is unusual', async () => {
    const id = ids[1]!;
    const runs = app.ctx.runner.queries.forDataset(id);
    expect(runs[0]!.metric_key).toBe('context_precision'); // the newest run: what the page used to open with
    const page = await admin.get(`/datasets/${id}/calibration`);
    const chosen = /<select id="f-run" name="run">.*?<option value="(\d+)" selected/.exec(page.text)![1];
    expect(runs.find((r) => r.id === Number(chosen))!.metric_key).toBe('answer_correctness');
    expect(page.text).not.toContain('Unusual pair');
    const cp = runs.find((r) => r.metric_key === 'context_precision')!;
    const correct = app.ctx.criteria.forDataset(id)[0]!;
    const odd = await admin.get(`/datasets/${id}/calibration?criterion=${correct.id}&run=${cp.id}`);
    expect(odd.text).toContain('Unusual pair: context_precision judges the retrieved contexts');
  });

  it('suggests a pair calibrated before first, and moves to any threshold, such as the best one', async () => {
    const id = ids[0]!;
    const correct = app.ctx.criteria.forDataset(id)[0]!;
    const faith = app.ctx.runner.queries.forDataset(id).find((r) => r.metric_key === 'faithfulness')!;
    await admin.get(`/datasets/${id}/calibration`);
    expect((await admin.post(`/datasets/${id}/calibration/record`, { criterion: correct.id, run: faith.id, part: 'all', threshold: '0.5' })).status).toBe(303);
    const page = await admin.get(`/datasets/${id}/calibration`);
    expect(/<select id="f-run" name="run">.*?<option value="(\d+)" selected/.exec(page.text)![1]).toBe(String(faith.id));
    const other = await admin.get(`/datasets/${id}/calibration?criterion=${correct.id}&run=${app.ctx.runner.queries.forDataset(id).find((r) => r.metric_key === 'answer_correctness')!.id}`);
    expect(other.text).toContain('Pairs that fit:');
    expect(other.text).toContain('correct × faithfulness · calibrated before');
    const best = /href="([^"]+threshold=([0-9.]+))">(Use the best threshold|使用最佳阈值)/.exec(page.text);
    expect(best).not.toBeNull();
    const at = await admin.get(best![1]!.replace(/&amp;/g, '&'));
    expect(at.text).toContain(`<output for="f-threshold" id="threshold-value">${Number(best![2]).toFixed(2)}</output>`);
    expect(at.text).not.toContain('Use the best threshold');
    const exact = await admin.get(`/datasets/${id}/calibration?criterion=${correct.id}&run=${faith.id}&part=all&threshold=0.44`);
    expect(exact.text).toContain('step="any" value="0.44"');
    expect(exact.text).toContain('<output for="f-threshold" id="threshold-value">0.44</output>');
  });
});
