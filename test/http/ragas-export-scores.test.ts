// goldset's own judge scores in Ragas's results layout: export --responses --run NAME adds each run's
// scores under the column Ragas names the metric, empty where there is none; ragas-jsonl escapes
// non-ASCII by default (Ragas's from_jsonl reads files in the platform's encoding), raw UTF-8 on request.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAs, startTestApp, type Client, type TestApp } from '../helpers.ts';
import { writeExport } from '../../server/importexport/export.ts';
import { scoreColumnsOf } from '../../server/importexport/export-scores.ts';

let app: TestApp;
let admin: Client;
let datasetId: number;

beforeAll(async () => {
  app = await startTestApp();
  admin = await loginAs(app, 'boss@example.com', 'admin');
  datasetId = app.ctx.datasets.create(null, { name: 'Scores', description: '', language: 'zh', domain: '' }).id;
  const file = path.join(app.dir, 'r.jsonl');
  fs.writeFileSync(file, [
    { user_input: '张伟是哪个部门的？', response: '张伟是教研部的成员', reference: '张伟是教研部的成员', system: 'a', faithfulness: 0.5 },
    { user_input: 'How many days?', response: 'Ten days.', reference: 'Ten days', system: 'a' },
    { user_input: 'Who approves?', response: 'The manager.', reference: '', system: 'a', faithfulness: 1 },
  ].map((r) => JSON.stringify(r)).join('\n'));
  expect((await app.ctx.imports.importFile(null, datasetId, file, { format: 'jsonl', runName: 'ragas' })).ok).toBe(true);
  for (const metric of ['bleu_score', 'rouge_score']) await app.ctx.runner.start(app.ctx.runner.create(null, datasetId, { name: 'nightly', metricKey: metric }).id);
});
afterAll(async () => { await app.close(); });

function exported(format: 'ragas-jsonl' | 'ragas-csv', runs: string[], utf8 = false): string {
  let out = '';
  const scoreColumns = scoreColumnsOf({ runs: app.ctx.runner.queries, registry: app.ctx.registry }, datasetId, runs);
  writeExport({ db: app.ctx.db, samples: app.ctx.samples.queries, criteria: [] }, { datasetId, status: 'all', responses: true, scoreColumns, utf8 }, format, (c) => { out += c; });
  return out;
}

describe('export --responses --run', () => {
  it('adds every run of each name as the column Ragas writes, null where the run has no score', () => {
    const rows = exported('ragas-jsonl', ['nightly', 'ragas']).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.keys(rows[0]!)).toEqual(['user_input', 'retrieved_contexts', 'response', 'reference', 'reference_contexts', 'system',
      'bleu_score', 'rouge_score(mode=fmeasure)', 'faithfulness']);
    expect(rows.map((r) => r.faithfulness)).toEqual([0.5, null, 1]);
    // bleu_score: the Chinese answer equals its reference (one 13a token: 0, too short for 4-grams); no ground truth → no score.
    expect(rows.map((r) => r.bleu_score)).toEqual([0, 0, null]);
    expect(rows[1]!['rouge_score(mode=fmeasure)']).toBeCloseTo(1, 12);
  });

  it('writes empty CSV cells where there is no score, which pandas reads as NaN', () => {
    const [header, ...rows] = parse(exported('ragas-csv', ['ragas'])) as string[][];
    expect(header).toContain('faithfulness');
    expect(rows.map((r) => r[header!.indexOf('faithfulness')])).toEqual(['0.5', '', '1']);
  });

  it('refuses an unknown run and two runs that would be the same column', () => {
    expect(() => exported('ragas-jsonl', ['nope'])).toThrow('No run named "nope".');
    app.ctx.runner.create(null, datasetId, { name: 'again', metricKey: 'bleu_score' });
    expect(() => exported('ragas-jsonl', ['nightly', 'again'])).toThrow(/both be column bleu_score/);
  });

  it('says why in the page\'s language on the Export page\'s download', async () => {
    const zh = await loginAs(app, 'li@example.com', 'admin');
    await zh.post('/locale', { locale: 'zh', back: '/datasets' });
    const unknown = await zh.get(`/datasets/${datasetId}/export/download?format=ragas-jsonl&status=all&responses=1&run=nope`);
    expect(unknown.status).toBe(422);
    expect(unknown.text).toContain('没有名为“nope”的运行。');
    const clash = await zh.get(`/datasets/${datasetId}/export/download?format=ragas-jsonl&status=all&responses=1&run=nightly&run=again`);
    expect(clash.status).toBe(422);
    expect(clash.text).toContain('都会写入列 bleu_score');
  });

  it('offers the runs on the Export page and adds them to the download', async () => {
    const page = await admin.get(`/datasets/${datasetId}/export`);
    expect(page.text).toContain('value="nightly"');
    const res = await admin.get(`/datasets/${datasetId}/export/download?format=ragas-jsonl&status=all&responses=1&run=nightly&run=ragas`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text.split('\n')[0]!)).toMatchObject({ faithfulness: 0.5, bleu_score: 0 });
  });
});

describe('ragas-jsonl on any locale', () => {
  it('escapes non-ASCII as \\uXXXX by default, so the file is pure ASCII, and keeps UTF-8 on request', () => {
    const escaped = exported('ragas-jsonl', []);
    expect(/^[\x00-\x7f]*$/.test(escaped)).toBe(true);
    expect(escaped).toContain('\\u5f20\\u4f1f');
    expect(JSON.parse(escaped.split('\n')[0]!).user_input).toBe('张伟是哪个部门的？');
    expect(exported('ragas-jsonl', [], true)).toContain('张伟是哪个部门的？');
  });
});
