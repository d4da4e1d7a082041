// Per-context labels in files: a `human.<criterion>` column of a per-context criterion is a list with one
// value per retrieved context (JSON array or Python list literal, null/None/empty for unlabelled ranks),
// exactly as the export with responses writes it; a list of the wrong length is refused with its row;
// a list column of a new criterion creates a per-context binary criterion.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'csv-stringify/sync';
import { loginAs, startTestApp, type Client, type TestApp } from '../helpers.ts';
import { goldsetCli } from '../cli.ts';
import { writeExport } from '../../server/importexport/export.ts';
import { parseLabelList } from '../../server/io/value-list.ts';

let app: TestApp;
let expert: number;
let counter = 0;

const ROWS = [
  { user_input: '张伟是哪个部门的？', response: '张伟是教研部的', retrieved_contexts: ['牛顿发现了万有引力', '张伟 教研部工程师', '李凯 教研部主任'], reference: '张伟是教研部的成员' },
  { user_input: 'How do I request leave?', response: 'Use the OA system.', retrieved_contexts: ['Leave is requested in OA.', 'The canteen opens at 8.'], reference: 'In the OA system.' },
];

beforeAll(async () => {
  app = await startTestApp();
  expert = app.ctx.users.queries.insert({ email: 'li@example.com', name: 'Li', role: 'expert', password_hash: null });
});
afterAll(async () => { await app.close(); });

async function importInto(name: string, file: string, content: string, options: Record<string, unknown> = {}) {
  const datasetId = app.ctx.datasets.create(null, { name: `${name} ${++counter}`, description: '', language: 'zh', domain: '' }).id;
  const full = path.join(app.dir, file);
  fs.writeFileSync(full, content);
  const result = await app.ctx.imports.importFile(null, datasetId, full, { annotatorId: expert, ...options });
  return { datasetId, result };
}

/** context index → value of the expert's labels of a criterion, per response in id order. */
function labelsOf(datasetId: number, criterion: string): Record<number, string>[] {
  const rows = app.ctx.db.prepare(`SELECT r.id, l.context_index, l.value FROM response r LEFT JOIN annotation a ON a.response_id = r.id
    LEFT JOIN label l ON l.annotation_id = a.id AND l.criterion_id = (SELECT id FROM criterion WHERE dataset_id = r.dataset_id AND name = ?)
    WHERE r.dataset_id = ? ORDER BY r.id, l.context_index`).all(criterion, datasetId) as { id: number; context_index: number | null; value: string | null }[];
  const by = new Map<number, Record<number, string>>();
  for (const r of rows) {
    const m = by.get(r.id) ?? {};
    if (r.context_index !== null && r.value !== null) m[r.context_index] = r.value;
    by.set(r.id, m);
  }
  return [...by.values()];
}

describe('label lists', () => {
  it('reads JSON arrays and the Python lists pandas writes, nulls as unlabelled ranks', () => {
    expect(parseLabelList('[1, 0, null]')).toEqual(['1', '0', null]);
    expect(parseLabelList('[1.0, 0.0, None]')).toEqual(['1', '0', null]);
    expect(parseLabelList("['yes', 'no', nan]")).toEqual(['yes', 'no', null]);
    expect(parseLabelList('[True, False]')).toEqual(['true', 'false']);
    expect(parseLabelList('["相关", \'不相关\', ""]')).toEqual(['相关', '不相关', null]);
    expect(parseLabelList('[]')).toEqual([]);
    expect(() => parseLabelList('[1, 0')).toThrow(/closing/);
    expect(() => parseLabelList('[1 0]')).toThrow(/','/);
  });

  it('imports a JSONL list column as labels of a new per-context binary criterion', async () => {
    const { datasetId, result } = await importInto('jsonl', 'a.jsonl', ROWS.map((r, i) => JSON.stringify({ ...r, 'human.relevant': [[0, 1, null], [1, 0]][i] })).join('\n'));
    expect(result.ok, JSON.stringify(result)).toBe(true);
    expect(result).toMatchObject({ labels: 4, criteriaCreated: ['relevant'] });
    const c = app.ctx.criteria.queries.byName(datasetId, 'relevant')!;
    expect({ target: c.target, kind: c.kind }).toEqual({ target: 'context', kind: 'binary' });
    expect(labelsOf(datasetId, 'relevant')).toEqual([{ 0: '0', 1: '1' }, { 0: '1', 1: '0' }]);
  });

  it('imports a pandas CSV with Python list literals into an existing per-context criterion', async () => {
    const csv = stringify([['user_input', 'response', 'retrieved_contexts', 'reference', 'human.relevant'],
      ...ROWS.map((r, i) => [r.user_input, r.response, `[${r.retrieved_contexts.map((c) => `'${c}'`).join(', ')}]`, r.reference, ['[0.0, 1.0, 1.0]', "['yes', None]"][i]])]);
    const { datasetId, result } = await importInto('csv', 'b.csv', csv);
    expect(result.ok, JSON.stringify(result)).toBe(true);
    expect(labelsOf(datasetId, 'relevant')).toEqual([{ 0: '0', 1: '1', 2: '1' }, { 0: '1' }]);
  });

  it('refuses a list whose length differs from the number of contexts, naming the row, and imports nothing', async () => {
    const { datasetId, result } = await importInto('length', 'c.jsonl', ROWS.map((r, i) => JSON.stringify({ ...r, 'human.relevant': [[0, 1, 1], [1, 0, 1]][i] })).join('\n'));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.labelErrors).toEqual([expect.objectContaining({ line: 2, criterion: 'relevant', problem: 'list_length', expected: 2, got: 3 })]);
    expect(app.ctx.db.prepare('SELECT count(*) FROM response WHERE dataset_id = ?').pluck().get(datasetId)).toBe(0);
    expect(app.ctx.criteria.forDataset(datasetId)).toEqual([]);
  });

  it('refuses a single value for a per-context criterion and a list for a response-level one', async () => {
    const { datasetId } = await importInto('kinds', 'd.jsonl', ROWS.map((r) => JSON.stringify({ ...r, 'human.relevant': [1, 1, 1].slice(0, r.retrieved_contexts.length), 'human.correct': 'yes' })).join('\n'));
    const file = path.join(app.dir, 'e.jsonl');
    fs.writeFileSync(file, ROWS.map((r) => JSON.stringify({ ...r, 'human.relevant': 'yes', 'human.correct': [1] })).join('\n'));
    const result = await app.ctx.imports.importFile(null, datasetId, file, { annotatorId: expert });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.labelErrors!.map((e) => [e.line, e.criterion, e.problem])).toEqual([
      [1, 'relevant', 'not_a_list'], [1, 'correct', 'unexpected_list'], [2, 'relevant', 'not_a_list'], [2, 'correct', 'unexpected_list'],
    ]);
  });

  it('takes back what the export with responses writes, in JSONL and CSV, and the gold is the same', async () => {
    const { datasetId } = await importInto('source', 'f.jsonl', ROWS.map((r, i) => JSON.stringify({ ...r, 'human.relevant': [[0, 1, null], [1, 0]][i], 'human.correct': ['yes', 'no'][i] })).join('\n'));
    const criteria = app.ctx.criteria.forDataset(datasetId);
    for (const format of ['ragas-jsonl', 'ragas-csv'] as const) {
      let text = '';
      writeExport({ db: app.ctx.db, samples: app.ctx.samples.queries, criteria }, { datasetId, status: 'all', responses: true }, format, (c) => { text += c; });
      expect(text).toContain(format === 'ragas-csv' ? '"[0,1,null]"' : '"human.relevant":[0,1,null]');
      const back = await importInto('copy', `g.${format === 'ragas-csv' ? 'csv' : 'jsonl'}`, text);
      expect(back.result.ok, JSON.stringify(back.result)).toBe(true);
      expect(labelsOf(back.datasetId, 'relevant')).toEqual(labelsOf(datasetId, 'relevant'));
      expect(app.ctx.criteria.queries.byName(back.datasetId, 'relevant')!.target).toBe('context');
    }
  });
});

describe('importing label lists through the upload page and the CLI', () => {
  let admin: Client;
  beforeAll(async () => { admin = await loginAs(app, 'boss@example.com', 'admin', 'zh'); });

  it('shows a length mismatch in the user\'s language', async () => {
    const datasetId = app.ctx.datasets.create(null, { name: 'upload', description: '', language: 'zh', domain: '' }).id;
    await admin.get(`/datasets/${datasetId}/import`);
    const res = await admin.upload(`/datasets/${datasetId}/import`, 'x.jsonl', ROWS.map((r) => JSON.stringify({ ...r, 'human.relevant': [1] })).join('\n'));
    expect(res.status).toBe(422);
    expect(res.text).toContain('第 1 行：评判标准 relevant 有 1 个值，但该回答检索到 3 条上下文');
  });

  it('--criterion-type NAME=context-binary makes the criterion per-context', async () => {
    const db = path.join(app.dir, 'cli.db');
    const file = path.join(app.dir, 'h.jsonl');
    // An all-empty first list leaves nothing to infer from; the declaration says what it is.
    fs.writeFileSync(file, ROWS.map((r, i) => JSON.stringify({ ...r, 'human.useful': [[null, null, null], ['是', '否']][i] })).join('\n'));
    const run = await goldsetCli(['import', file, '--dataset', 'HR', '--annotator', 'li@example.com', '--criterion-type', 'useful=context-binary', '--json'], { env: { GOLDSET_DB: db } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ labels: 2, criteria_created: ['useful'] });
    const bad = await goldsetCli(['import', file, '--dataset', 'HR2', '--criterion-type', 'useful=context'], { env: { GOLDSET_DB: db } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('context-binary');
  });
});
